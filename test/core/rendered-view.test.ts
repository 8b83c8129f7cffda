import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entityAt } from '../../src/core/html-entities.js';
import { createRedactor, redact as patternsOnly, REDACTED } from '../../src/core/redact.js';
import { renderedView } from '../../src/core/rendered-view.js';
import { renderedText } from '../../src/emulators/github/rendered-text.js';
import { neutraliseMarkdown, WORD_JOINER } from '../../src/github/neutralise.js';
import { findSecrets } from '../../src/session/secret-scan.js';

const SECRET = 'zz-0123456789abcdef-token';
const redact = createRedactor([SECRET]);
const code = (c: string) => c.codePointAt(0) ?? 0;
const hex2 = (c: string) => code(c).toString(16).padStart(2, '0');

/** Ways to write one ASCII character that GitHub renders as that character. */
const NAMED: Readonly<Record<string, string>> = { _: '&lowbar;', '.': '&period;', '-': '&hyphen;' };
type Style =
  | 'literal'
  | 'percent'
  | 'PERCENT'
  | 'percent twice'
  | 'decimal'
  | 'decimal bare'
  | 'hex'
  | 'HEX bare'
  | 'named'
  | 'amp nested'
  | 'percent of a reference'
  | 'full-width'
  | 'full-width, percent-encoded';
const STYLES: Style[] = [
  'literal',
  'percent',
  'PERCENT',
  'percent twice',
  'decimal',
  'decimal bare',
  'hex',
  'HEX bare',
  'named',
  'amp nested',
  'percent of a reference',
  'full-width',
  'full-width, percent-encoded',
];
/** Characters that render as nothing, written as themselves, as references and percent-encoded. */
const INVISIBLES = [
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u034f',
  '\ufe0f',
  '\u{e0101}',
  '\u180e',
  '\u2062',
  '&#8203;',
  '&#x200B;',
  '&ZeroWidthSpace;',
  '&shy;',
  '&zwj;',
  '%E2%80%8B',
  '%C2%AD',
  '%F3%A0%84%81',
];

/** `char` written in `style`; `next` is what follows, so that a reference without `;` is not extended by it. */
function written(char: string, style: Style, next: string): string {
  switch (style) {
    case 'literal':
      return char;
    case 'percent':
      return `%${hex2(char)}`;
    case 'PERCENT':
      return `%${hex2(char).toUpperCase()}`;
    case 'percent twice':
      return `%25${hex2(char)}`;
    case 'decimal':
      return `&#${code(char)};`;
    case 'decimal bare':
      return /^[0-9]/.test(next) ? `&#${code(char)};` : `&#${code(char)}`;
    case 'hex':
      return `&#x${hex2(char)};`;
    case 'HEX bare':
      return /^[0-9A-Fa-f]/.test(next) ? `&#X${hex2(char)};` : `&#X${hex2(char).toUpperCase()}`;
    case 'named':
      return NAMED[char] ?? `&#${code(char)};`;
    case 'amp nested':
      return `&amp;#${code(char)};`;
    case 'percent of a reference':
      return `%26%23${code(char)}%3B`;
    case 'full-width':
      return String.fromCodePoint(code(char) + 0xfee0);
    case 'full-width, percent-encoded':
      return encodeURIComponent(String.fromCodePoint(code(char) + 0xfee0));
  }
}

/** `text` written piece by piece, an invisible (or none) after each piece but the last: the pieces and their spans. */
function write(text: string, styles: Style[], gaps: Array<string | undefined>) {
  const chars = [...text];
  const pieces: string[] = [];
  for (let i = chars.length - 1; i >= 0; i--) {
    const gap = i < chars.length - 1 ? (gaps[i] ?? '') : '';
    const next = `${gap}${pieces[0] ?? ''}`;
    pieces.unshift(`${written(chars[i] ?? '', styles[i] ?? 'literal', next)}${gap}`);
  }
  const spans: Array<[number, number]> = [];
  let at = 0;
  for (const [i, piece] of pieces.entries()) {
    const gap = i < chars.length - 1 ? (gaps[i] ?? '') : '';
    spans.push([at, at + piece.length - gap.length]);
    at += piece.length;
  }
  return { text: pieces.join(''), spans };
}

const styles = (n: number) => fc.array(fc.constantFrom(...STYLES), { minLength: n, maxLength: n });
const gaps = (n: number) =>
  fc.array(fc.option(fc.constantFrom(...INVISIBLES), { nil: undefined }), { minLength: n, maxLength: n });

describe('rendered view', () => {
  it('decodes character references, percent-encoding, invisibles and full-width forms, layer after layer', () => {
    const cases: Record<string, string> = {
      '&#122;&#x7a;&#X7A&#122': 'zzzz',
      '&lowbar;&UnderBar;&period;&hyphen;&minus;&sol;&colon;&Aopf;&bscr;&Cfr;': '__.--/:AbC',
      '&amp;#122;|&amp;amp;#x7a;|%26%23122%3B|&#37;7A|%2526%2523122%253B': 'z|z|z|z|z',
      'z\u200bz\u00adz\u2060z\ufeffz\u034fz\ufe0fz\u{e0101}z&shy;z&#8203;z%E2%80%8Bz': 'zzzzzzzzzzz',
      'ｚｚ－０１𝟐𝐚': 'zz-012a',
      'z%F3%A0%84%81z%F0%9D%90%B3%25F0%259D%2590%25B3%F0%9F%8E%89': 'zzzz🎉',
      '&ampx &lt;b&gt; &notanentity; &#xD800; &#0;': '&x <b> &notanentity; \ufffd \ufffd',
    };
    for (const [text, shown] of Object.entries(cases)) expect(renderedView(text)?.text).toBe(shown);
  });

  it('is undefined where rendering changes nothing: no `%`, `&`, invisible or foldable character, or none that decodes', () => {
    for (const text of [
      'plain ASCII text',
      'a && b; 50% done',
      'grüße, 日本語, emoji 🎉',
      'a &notanentity b',
    ])
      expect(renderedView(text)).toBeUndefined();
  });

  it('maps a span of the view to exactly the characters that rendered it', () => {
    const view = renderedView('a&amp;#98;\u200bc%2564');
    expect(view?.text).toBe('abcd');
    expect(view?.original(0, 1)).toEqual([0, 1]);
    expect(view?.original(1, 2)).toEqual([1, 10]);
    expect(view?.original(2, 3)).toEqual([11, 12]);
    expect(view?.original(1, 3)).toEqual([1, 12]);
    expect(view?.original(3, 4)).toEqual([12, 17]);
  });

  it('property: each rendered character maps back to exactly what it was written as, invisibles between left out', () => {
    const text = 'aZ7-_.zq';
    fc.assert(
      fc.property(styles(text.length), gaps(text.length), (how, between) => {
        const { text: source, spans } = write(text, how, between);
        const view = renderedView(source);
        expect(view?.text ?? source).toBe(text);
        if (!view) return;
        for (const [i, span] of spans.entries()) expect(view.original(i, i + 1)).toEqual(span);
        expect(view.original(0, text.length)).toEqual([0, source.length]);
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('regression: a secret written as character references or with invisibles between its letters passed the redactor', () => {
  it('removes a secret and a token shape in any such form, and nothing around them', () => {
    const token = `ghs_${'k9'.repeat(18)}`;
    const references = (t: string) => [...t].map((c) => `&#${code(c)};`).join('');
    expect(redact(`Debug: ${references(SECRET)} and ${[...token].join('\u200b')}.`)).toBe(
      `Debug: ${REDACTED} and ${REDACTED}.`,
    );
    expect(redact(`x ${[...SECRET].join('&shy;')} y`)).toBe(`x ${REDACTED} y`);
    expect(patternsOnly('go https://x.io/?a=1&amp;api_key&#61;abc123 now')).toBe(
      `go https://x.io/?a=1${REDACTED} now`,
    );
  });

  it('property: finds the secret in any mix of literal, percent-encoded, referenced and full-width characters with invisibles between', () => {
    fc.assert(
      fc.property(
        styles(SECRET.length),
        gaps(SECRET.length),
        fc.stringMatching(/^[a-z ]{0,8}$/),
        (how, between, word) => {
          const { text } = write(SECRET, how, between);
          const out = redact(`${word} ${text} ${word}`);
          expect(out).toBe(`${word} ${REDACTED} ${word}`);
          // And the emulator, which renders independently of the redactor, sees no secret either.
          expect(renderedText(out).text.replace(/\p{Cf}/gu, '')).not.toContain(SECRET);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a diff that adds such a secret or token', () => {
    const token = `ghs_${'k9'.repeat(18)}`;
    const diff = [
      'diff --git a/n.md b/n.md',
      '--- a/n.md',
      '+++ b/n.md',
      '@@ -0,0 +1,2 @@',
      `+see ${[...SECRET].map((c) => `&#x${hex2(c)}`).join('\u200b')}`,
      `+and ${[...token].join('\u2060')}`,
    ].join('\n');
    expect(findSecrets(diff, [SECRET])).toEqual([
      { file: 'n.md', line: 1, kind: 'known secret (encoded)' },
      { file: 'n.md', line: 2, kind: 'GitHub token' },
    ]);
  });
});

describe('the neutraliser reads references with the same decoder', () => {
  it('breaks a mention or a reference written with a reference HTML reads without its `;`', () => {
    expect(entityAt('&#64team', 0)).toEqual({ char: '@', length: 4 });
    expect(neutraliseMarkdown('&#64team')).toBe(`&#64${WORD_JOINER}team`);
    expect(neutraliseMarkdown('closes &#x23 3 and closes &num;&#x34')).toContain(`&num;${WORD_JOINER}&#x34`);
    expect(neutraliseMarkdown('&commat;&Topf;eam')).toBe(`&commat;${WORD_JOINER}&Topf;eam`);
  });
});

describe('a secret with characters that render otherwise', () => {
  it('is found as it renders too', () => {
    const secret = 'pw²-&amp;-x\u200dy-long';
    const redactor = createRedactor([secret]);
    expect(redactor(`a ${secret} b`)).toBe(`a ${REDACTED} b`);
    expect(redactor('a pw&#178;-&amp;amp;-xy-long b')).toBe(`a ${REDACTED} b`);
    expect(redactor('a pw2-&-xy-long b')).toBe(`a ${REDACTED} b`);
  });
});

describe('Markdown markup between a secret’s letters (a text GitHub renders)', () => {
  // GitHub shows `zz-0123**4567**…` as the secret with a bold middle, `zz\-0123…` as the secret, and
  // a copy gives it back (found by the red team after the rendered view landed).
  const hidden = [
    `${SECRET.slice(0, 7)}**${SECRET.slice(7, 11)}**${SECRET.slice(11)}`,
    `zz\\${SECRET.slice(2)}`,
    `${SECRET.slice(0, 4)}~~${SECRET.slice(4, 9)}~~${SECRET.slice(9)}`,
    `${SECRET.slice(0, 5)}<b></b>${SECRET.slice(5, 10)}<i>${SECRET.slice(10, 12)}</i>${SECRET.slice(12)}`,
    `zz\\-012**&#x33;**%34${SECRET.slice(8)}`,
  ];

  it('regression: emphasis, strike-through, a tag or a backslash escape between the letters no longer hides the secret', () => {
    for (const text of hidden) {
      const out = redact(`see ${text} here`, { markdown: true });
      expect(out).toBe(`see ${REDACTED} here`);
      expect(renderedText(out).text).not.toContain(SECRET);
    }
  });

  it('is a Markdown reading only: a log line keeps its asterisks and backslashes as they are', () => {
    const line = `glob **/*.ts \\d and ${hidden[0]}`;
    expect(redact(line)).toBe(line);
    expect(redact('a **bold** `code` <b>tag</b> \\-x', { markdown: true })).toBe(
      'a **bold** `code` <b>tag</b> \\-x',
    );
  });

  it('leaves an underscore inside a word alone: GitHub shows it, so the text is not the secret', () => {
    const text = `${SECRET.slice(0, 7)}_${SECRET.slice(7)}`;
    expect(redact(text, { markdown: true })).toBe(text);
  });
});
