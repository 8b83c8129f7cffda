import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../src/core/redact.js';
import { secretForms } from '../../src/core/secret-forms.js';

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
