import { describe, expect, it } from 'vitest';
import { createRedactor, redact as patternsOnly, REDACTED } from '../../src/core/redact.js';
import { renderedMatches, renderedView } from '../../src/core/rendered-view.js';

const SECRET = 'zz-0123456789abcdef-token';
const redact = createRedactor([SECRET]);
const every = (text: string) =>
  [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
/** `char` percent-encoded `times` times: `%41`, `%2541`, `%252541`, … */
const encoded = (char: string, times: number) => `%${'25'.repeat(times - 1)}${every(char).slice(1)}`;

describe('rendered view: the edges of the UTF-8 decoder', () => {
  it('regression: decodes the first and last lead byte of each sequence length as one character', () => {
    const cases: Record<string, string> = {
      '%C2%A0': '\u00a0',
      '%DF%BF': '\u07ff',
      '%E0%A4%85': '\u0905',
      '%EF%BF%BD': '\ufffd',
      '%F0%9F%8E%89': '\u{1f389}',
      '%F4%8F%BF%BF': '\u{10ffff}',
    };
    for (const [text, char] of Object.entries(cases)) {
      const view = renderedView(`a${text}b`);
      expect(view?.text, text).toBe(`a${char}b`);
      expect(view?.original(1, 1 + char.length), text).toEqual([1, 1 + text.length]);
    }
  });

  it('reads a sequence cut short as its bytes, one character each, not as a replacement character', () => {
    expect(renderedView('a%E2%82b')?.text).toBe('a\u00e2\u0082b');
    expect(renderedView('a%E2%82b')?.original(2, 3)).toEqual([4, 7]);
  });
});

describe('rendered view: bounds and mapping', () => {
  it('undoes six layers of percent-encoding and no more (each layer costs a pass)', () => {
    expect(renderedView(encoded('A', 6))?.text).toBe('A');
    expect(renderedView(encoded('A', 7))?.text).toBe('%41');
  });

  it('has no view for a character that would fold but folds to itself (℃ is not ASCII)', () => {
    expect(renderedView('25℃ in ①')?.text).toBe('25℃ in 1');
    expect(renderedView('25℃ outside')).toBeUndefined();
  });

  it('maps an empty span of the view to the empty span where it stands in the original', () => {
    const view = renderedView('a%41%42c');
    expect(view?.text).toBe('aABc');
    expect(view?.original(0, 0)).toEqual([0, 0]);
    expect(view?.original(1, 1)).toEqual([1, 1]);
    expect(view?.original(2, 2)).toEqual([4, 4]);
    expect(view?.original(3, 3)).toEqual([7, 7]);
    // Past a character that renders as nothing, the empty span stands after it.
    expect(renderedView('a\u200bb')?.original(1, 1)).toEqual([2, 2]);
  });

  it('reads emphasis only in Markdown: a log line keeps its underscores', () => {
    expect(renderedView('a_b_ %41', { emphasis: true })?.text).toBe('a_b_ A');
    expect(renderedView('a_b_ %41', { markdown: true, emphasis: true })?.text).toBe('a_b A');
  });

  it('takes an emoji before an underscore whole: _ after a symbol may open emphasis, after a letter it may not', () => {
    expect(renderedView('\u{1f389}_x_', { markdown: true, emphasis: true })?.text).toBe('\u{1f389}x');
    // 𝐚 is a letter (it folds to a): the _ after it stays.
    expect(renderedView('\u{1d41a}_x_', { markdown: true, emphasis: true })?.text).toBe('a_x');
  });
});

describe('renderedMatches', () => {
  it('skips empty matches and ends (a pattern that can match nothing must not loop)', () => {
    const text = 'x%41y';
    expect(renderedMatches(text, renderedView(text), [/B*/g])).toEqual([]);
    expect(renderedMatches(text, renderedView(text), [/A/g])).toEqual([[1, 4]]);
  });

  it('returns the spans of several patterns in order, merging those that touch or overlap', () => {
    const text = 'a%42%43xd%45f';
    const view = renderedView(text);
    expect(view?.text).toBe('aBCxdEf');
    // Found out of order (Ef first), touching (B and C), overlapping (dE and Ef), apart (x between).
    expect(renderedMatches(text, view, [/Ef/g, /dE/g, /C/g, /B/g])).toEqual([
      [1, 7],
      [8, 13],
    ]);
  });

  it('no view, no spans', () => {
    expect(renderedMatches('plain', [undefined, undefined], [/plain/g])).toEqual([]);
  });
});

describe('redaction in the rendered view, next to what the literal passes did', () => {
  it('regression: a token right after a percent-encoded space is removed (its \\b is there only as rendered)', () => {
    const token = `ghp_${'A1b2C3d4'.repeat(3)}`;
    expect(patternsOnly(`x%20${token} y`)).toBe(`x%20${REDACTED} y`);
  });

  it('keeps a key the literal pass already redacted as it is, beside unrelated percent-encoding', () => {
    expect(patternsOnly('GET /x?token=abc123 at 50%25')).toBe(`GET /x?token=${REDACTED} at 50%25`);
    // Where a neighbour renders otherwise, the span goes whole: what the literal pass saw may differ.
    expect(patternsOnly('GET /x?q=50%25&token=abc123')).toBe(`GET /x?q=50%25${REDACTED}`);
  });

  it('regression: an encoded token and an encoded secret in one text are both removed, each alone', () => {
    const token = `ghs_${'k9'.repeat(18)}`;
    expect(redact(`a ${every(SECRET)} b ${every(token)} c`)).toBe(`a ${REDACTED} b ${REDACTED} c`);
    expect(redact(`a ${every(token)} b ${every(SECRET)} c`)).toBe(`a ${REDACTED} b ${REDACTED} c`);
  });

  it('an encoded secret written twice in a row goes as one span', () => {
    expect(redact(`x ${every(SECRET)}${every(SECRET)} y`)).toBe(`x ${REDACTED} y`);
  });
});
