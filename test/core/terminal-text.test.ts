import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forTerminal, terminalJson } from '../../src/core/terminal-text.js';
import { TERMINAL_ACTS } from '../helpers/terminal-acts.js';

describe('forTerminal', () => {
  it('regression: a check name that set the title and cleared the screen shows as its text only', () => {
    expect(forTerminal('test\u001b]0;pwned\u0007\u001b[2J done')).toBe('test done');
  });

  it.each([
    ['CSI with parameters and intermediates', 'a\u001b[38;5;196mred\u001b[0m b', 'ared b'],
    ['8-bit CSI', 'a\u009b2Jb', 'ab'],
    ['OSC 8 hyperlink ended by ST', '\u001b]8;;https://evil\u001b\\click\u001b]8;;\u001b\\', 'click'],
    ['8-bit OSC ended by 8-bit ST', 'a\u009d0;t\u009cb', 'ab'],
    ['DCS, SOS, PM, APC', '\u001bPq#0\u001b\\x\u001bXs\u001b\\\u001b^p\u001b\\\u001b_a\u001b\\', 'x'],
    ['an unterminated OSC, up to the line end only', 'a\u001b]0;title\nnext', 'a\nnext'],
    ['two-character escapes (reset, charset)', 'a\u001bcb\u001b(0c', 'abc'],
    ['carriage return, backspace, bell, DEL', 'ok\rspoof\b\u0007\u007f!', 'okspoof!'],
    ['bidi controls', 'a\u202ecba\u202c \u2066x\u2069 \u200e\u200f\u061c', 'acba x '],
  ])('strips %s', (_how, text, shown) => {
    expect(forTerminal(text)).toBe(shown);
  });

  it('keeps line feeds, tabs and every printable character, non-ASCII included', () => {
    const text = 'naïve 名前\tcafé ✅ — “quoted” #12 @octocat\n';
    expect(forTerminal(text)).toBe(text);
  });

  it('property: leaves nothing a terminal acts on, and changes nothing twice', () => {
    const unit = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom(
        '\u001b',
        '\u001b[',
        '\u001b]',
        '\u009b',
        '\u009d',
        '\u0007',
        '\u001b\\',
        '\u202e',
        '2J',
        ';',
      ),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 20 }), (parts) => {
        const out = forTerminal(parts.join(''));
        expect(out).not.toMatch(TERMINAL_ACTS);
        expect(forTerminal(out)).toBe(out);
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('terminalJson', () => {
  it('decision: --json keeps the data, with what a terminal acts on escaped (C1, DEL, bidi, line separators)', () => {
    const value = { name: 'a\u001b[2J\u009b\u007f\u202eb\u2028', n: 1 };
    const json = terminalJson(value, undefined, 2);
    expect(json).not.toMatch(TERMINAL_ACTS);
    expect(json).not.toMatch(/[\u2028\u2029]/);
    expect(json).toContain('\\u009b');
    expect(json).toContain('\\u202e');
    expect(JSON.parse(json)).toEqual(value);
  });
});
