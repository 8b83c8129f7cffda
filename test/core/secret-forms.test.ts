import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../src/core/redact.js';
import { secretForms, secretsPattern } from '../../src/core/secret-forms.js';

const TOKEN = 'ghs_exfiltrationTest0123456789abcdefABCD';
const EXTRA = 'correct-horse-battery-staple';
const redact = createRedactor([TOKEN, EXTRA]);

const b64 = (text: string) => Buffer.from(text).toString('base64');
const b64url = (text: string) => Buffer.from(text).toString('base64url');
const reverse = (text: string) => [...text].reverse().join('');
const wrap = (text: string, width: number) =>
  text.match(new RegExp(`.{1,${width}}`, 'g'))?.join('\n') ?? text;

/** What an attacker agent wrote into the PR body, the tracking comment and `run --json`. */
const EXFILTRATIONS: Record<string, (secret: string) => string> = {
  base64: (s) => `data: ${b64(s)}`,
  'base64 of the git header': (s) => `AUTHORIZATION: basic ${b64(`x-access-token:${s}`)}`,
  'base64 at offset 1': (s) => b64(`x${s}`),
  'base64 at offset 2': (s) => b64(`xy${s}`),
  base64url: (s) => b64url(`--${s}--`),
  hex: (s) => Buffer.from(s).toString('hex'),
  'upper-case hex': (s) => Buffer.from(s).toString('hex').toUpperCase(),
  'url-encoded': (s) => `https://evil.example/?q=${encodeURIComponent(`${s}/`)}`,
  reversed: (s) => `reversed: ${reverse(s)}`,
  'split across a line break': (s) => `${s.slice(0, 10)}\n${s.slice(10)}`,
  'split with indentation': (s) => `    ${s.slice(0, 7)}\r\n    ${s.slice(7)}`,
  'base64 wrapped at 16 columns': (s) => wrap(b64(`x-access-token:${s}`), 16),
};

describe('createRedactor: a known secret in any form', () => {
  for (const [how, make] of Object.entries(EXFILTRATIONS)) {
    for (const secret of [TOKEN, EXTRA]) {
      it(`regression: removes ${how} (${secret.slice(0, 8)}…)`, () => {
        const text = `before ${make(secret)} after`;
        const out = redact(text);
        expect(out).toContain(REDACTED);
        // Nothing of the form is left that would decode to the secret.
        expect(out).not.toContain(secret.slice(4, 20));
        expect(out).not.toContain(b64(secret).slice(4, 20));
        expect(out).not.toContain(Buffer.from(secret).toString('hex').slice(4, 20));
        expect(out).not.toContain(reverse(secret).slice(4, 20));
        expect(out.startsWith('before ')).toBe(true);
      });
    }
  }

  it('leaves ordinary text, short values and unrelated base64 alone', () => {
    const text = 'npm test passed in 3.2 s\nhello world aGVsbG8gd29ybGQ= 68656c6c6f';
    expect(createRedactor([TOKEN, 'abc']).call(undefined, text)).toBe(text);
  });

  it('derives no encoded form from a short value (it would match ordinary text)', () => {
    expect(secretForms('hunter2').map((f) => f.kind)).toEqual(['literal']);
  });
});

/**
 * The base64 characters of `secret` that stay the same whatever `k` bytes come before it and
 * whatever comes after: found by encoding it between all-zero and all-one bytes, not by the
 * formula secret-forms.ts uses.
 */
function stableBase64(secret: string, k: number): string {
  const bytes = Buffer.from(secret);
  const encode = (fill: number, tail: number) =>
    Buffer.concat([Buffer.alloc(k, fill), bytes, Buffer.alloc(3, tail)]).toString('base64');
  const variants = [encode(0, 0), encode(0xff, 0xff), encode(0, 0xff), encode(0xff, 0)];
  const first = variants[0] ?? '';
  const same = [...first].map((c, i) => variants.every((v) => v[i] === c));
  const start = same.indexOf(true);
  const end = same.indexOf(false, start);
  return first.slice(start, end);
}

describe('secretForms: each form, as long as it can be and named for what it is', () => {
  // `>>>???` encodes to `Pj4+Pz8/`: its base64 carries both characters base64url replaces.
  const SECRET = 'key>>>???-"quoted"-é';

  it('regression: the base64 forms are the longest runs no neighbouring byte can change, at each of the three alignments', () => {
    const base64 = secretForms(SECRET).filter((f) => f.kind === 'base64');
    const expected = [0, 1, 2].map((k) => stableBase64(SECRET, k));
    expect(expected.every((core) => core.length >= 20)).toBe(true);
    expect(base64.map((f) => f.text)).toEqual(expected);
  });

  it('names every form by its kind, and adds base64url where it differs', () => {
    const forms = new Map(secretForms(SECRET).map((f) => [f.text, f.kind]));
    const hex = Buffer.from(SECRET).toString('hex');
    const core = stableBase64(SECRET, 0);
    expect(core).toMatch(/\+.*\//);
    expect(forms.get(SECRET)).toBe('literal');
    expect(forms.get(JSON.stringify(SECRET).slice(1, -1))).toBe('json');
    expect(forms.get(core)).toBe('base64');
    expect(forms.get(core.replace(/\+/g, '-').replace(/\//g, '_'))).toBe('base64url');
    expect(forms.get(hex)).toBe('hex');
    expect(forms.get(hex.toUpperCase())).toBe('hex');
    expect(forms.get(encodeURIComponent(SECRET))).toBe('url-encoded');
    expect(forms.get([...SECRET].reverse().join(''))).toBe('reversed');
    expect(new Map(secretForms('pw²-abcd').map((f) => [f.text, f.kind])).get('pw2-abcd')).toBe('literal');
  });

  it('regression: a secret whose base64 has + and / is removed written as base64url', () => {
    const written = b64url(`xy${SECRET}z`);
    expect(written).toMatch(/-.*_/);
    const out = createRedactor([SECRET])(`data ${written} end`);
    // What is left around the marker encodes the neighbouring bytes, never the secret's.
    expect(out).toMatch(/^data [\w-]{0,3}\[REDACTED\][\w-]{0,3} end$/);
  });

  it('derives the encoded forms from a secret of exactly the minimum length', () => {
    const kinds = secretForms('a1b2c3d4').map((f) => f.kind);
    expect(kinds).toEqual(expect.arrayContaining(['literal', 'base64', 'hex', 'reversed']));
  });

  it('looks for a secret as it renders only when that is long enough: pw²x leaves pw2x in ordinary text', () => {
    expect(createRedactor(['pw²x'])('the pw2x model, pw²x')).toBe(`the pw2x model, ${REDACTED}`);
    expect(createRedactor(['pw²-abcd'])('x pw2-abcd y')).toBe(`x ${REDACTED} y`);
  });
});

describe('secretsPattern: one pattern for every form', () => {
  it('regression: a secret full of regular-expression characters is matched as written, not as a pattern', () => {
    const secret = 'a.b*c+d?e^f$g{1}(h)|i[j]k\\l';
    const scrub = createRedactor([secret]);
    expect(scrub(`pw ${secret} end`)).toBe(`pw ${REDACTED} end`);
    const lookalike = 'aXbbbbcccd?e^f$g{1}(h)|i[j]k\\l';
    expect(scrub(`pw ${lookalike} end`)).toBe(`pw ${lookalike} end`);
  });

  it('regression: every occurrence goes, not only the first, whole or split over lines', () => {
    const out = redact(`${EXTRA} and ${EXTRA}\nthen ${EXTRA.slice(0, 9)}\n  ${EXTRA.slice(9)} and ${EXTRA}`);
    expect(out).toBe(`${REDACTED} and ${REDACTED}\nthen ${REDACTED} and ${REDACTED}`);
  });

  it('tries the longest form first, so that a secret containing another goes whole', () => {
    const pattern = secretsPattern(secretForms('abcd').concat(secretForms('abcd-efgh-ijkl')), {
      split: false,
    });
    expect('x abcd-efgh-ijkl y'.replace(pattern ?? /$^/, '#')).toBe('x # y');
  });

  it('is undefined without forms: a pattern of nothing would match between every character', () => {
    expect(secretsPattern([], { split: true })).toBeUndefined();
    expect(createRedactor([])('plain text')).toBe('plain text');
  });

  it('allows a line break, a diff’s + and indentation between any two characters only when asked', () => {
    const forms = secretForms('abcdefgh');
    const split = secretsPattern(forms, { split: true });
    const whole = secretsPattern(forms, { split: false });
    expect('abc\r\n+   defgh'.replace(split ?? /$^/, '#')).toBe('#');
    expect('abc\r\n+   defgh'.replace(whole ?? /$^/, '#')).toBe('abc\r\n+   defgh');
    expect('abcdefgh'.replace(whole ?? /$^/, '#')).toBe('#');
  });
});
