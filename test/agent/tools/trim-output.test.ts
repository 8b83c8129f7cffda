import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createOutputCollector, omittedMarker, trimOutput } from '../../../src/agent/tools/trim-output.js';

describe('trimOutput', () => {
  it('leaves text within the limit unchanged, up to exactly the limit', () => {
    expect(trimOutput('', 10)).toBe('');
    expect(trimOutput('0123456789', 10)).toBe('0123456789');
  });

  it('keeps half head, half tail one character past the limit', () => {
    expect(trimOutput('0123456789A', 10)).toBe('01234\n… [1 characters omitted] …\n6789A');
  });

  it('gives the odd character to the tail', () => {
    expect(trimOutput('abcdefghij', 5)).toBe(`ab${omittedMarker(5)}hij`);
  });

  it('omits everything at a zero limit', () => {
    expect(trimOutput('abc', 0)).toBe(omittedMarker(3));
  });

  it('never cuts a surrogate pair in half', () => {
    // The head cut falls between the halves of 😀 and the tail cut between the halves of 🎉.
    const text = `a😀${'x'.repeat(10)}🎉b`;
    const trimmed = trimOutput(text, 4);
    expect(trimmed).toBe(`a${omittedMarker(text.length - 2)}b`);
    expect(trimmed.isWellFormed()).toBe(true);
  });
});

describe('createOutputCollector', () => {
  it('returns everything pushed while within the limit', () => {
    const out = createOutputCollector(10);
    out.push('01234');
    out.push('56789');
    expect(out.text()).toBe('0123456789');
    expect(out.omitted()).toBe(0);
  });

  it('counts omitted characters once past the limit', () => {
    const out = createOutputCollector(10);
    out.push('0123456789');
    out.push('AB');
    expect(out.text()).toBe(`01234${omittedMarker(2)}789AB`);
    expect(out.omitted()).toBe(2);
  });

  it('keeps a rolling tail across many small chunks', () => {
    const out = createOutputCollector(6);
    for (const ch of 'abcdefghijklmnopqrstuvwxyz') out.push(ch);
    expect(out.text()).toBe(`abc${omittedMarker(20)}xyz`);
  });

  it('trims exactly as trimOutput, however the text is chunked', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.integer({ min: 0, max: 60 }),
        (text, cuts, limit) => {
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const out = createOutputCollector(limit);
          let from = 0;
          for (const point of [...points, text.length]) {
            out.push(text.slice(from, point));
            from = point;
          }
          expect(out.text()).toBe(trimOutput(text, limit));
        },
      ),
    );
  });

  it('stays bounded for a large stream', () => {
    const out = createOutputCollector(1000);
    const chunk = 'y\n'.repeat(32_768);
    for (let i = 0; i < 200; i++) out.push(chunk);
    const total = 200 * chunk.length;
    expect(out.omitted()).toBe(total - 1000);
    expect(out.text()).toBe(`${'y\n'.repeat(250)}${omittedMarker(total - 1000)}${'y\n'.repeat(250)}`);
  });
});
