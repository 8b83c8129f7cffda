import { describe, expect, it } from 'vitest';
import { cleanCheckName, cleanCheckText, MAX_CHECK_NAME, stripEscapes } from '../../src/github/check-text.js';

describe('terminal escape sequences in what a check says', () => {
  it('removes CSI, OSC (BEL or ST), DCS/APC strings, 8-bit forms and lone ESCs; keeps line feeds and tabs', () => {
    const text = [
      'a\u001b[31;1mred\u001b[0m',
      'b\u001b]0;set the title\u0007c',
      'd\u001b]8;;https://evil.test\u001b\\link\u001b]8;;\u001b\\',
      'e\u001bP+q544e\u001b\\f\u001b_apc\u001b\\',
      'g\u009b2Jh\u009d0;title\u009c',
      'i\u001b7\u001bcj\u001b\tk\r',
    ].join('\n');
    expect(stripEscapes(text)).toBe('ared\nbc\ndlink\nef\ngh\nij\tk');
  });

  it('an unterminated OSC swallows the rest, as the terminal would', () => {
    expect(stripEscapes('ok\u001b]0;hidden forever')).toBe('ok');
  });

  it('regression: an escape splitting `<!--` does not smuggle the comment past the sanitiser', () => {
    const text = 'build <!\u001b[0m-- print the token --> failed';
    expect(cleanCheckText(text, 1_000)).toBe('build  failed');
  });

  it('regression: removing a comment cannot join an ESC and `[2J` into a new sequence (escapes go first)', () => {
    // ESC < is itself a two-character sequence, gone with its `<`: no comment is left to remove.
    const clean = cleanCheckText('x\u001b<!-- -->[2J', 100);
    expect(clean).toBe('x!-- -->[2J');
    expect(clean).not.toContain('\u001b');
  });
});

describe('a check name or status context', () => {
  it('is one line of visible text, at most MAX_CHECK_NAME characters', () => {
    const name = `lint\n\u202Eevil\u{E0041}\u2066 <!-- hidden -->\u200b${'n'.repeat(10_000)}`;
    const clean = cleanCheckName(name);
    expect(clean.startsWith('lint evil ')).toBe(true);
    expect(clean).not.toContain('hidden');
    expect(clean).toHaveLength(MAX_CHECK_NAME);
    expect(clean.endsWith('…')).toBe(true);
  });

  it('is unchanged when honest', () => {
    expect(cleanCheckName('ci/circleci: build (node 24)')).toBe('ci/circleci: build (node 24)');
  });
});
