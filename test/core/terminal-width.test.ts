import { describe, expect, it } from 'vitest';
import { displayWidth, fitToWidth } from '../../src/core/terminal-width.js';

const LINE = '#12  working     14 model calls  $1.25  3m 05s';

describe('newcomer: live lines fit a narrow terminal (cut to its width)', () => {
  it('counts columns: wide characters two, accents and escape sequences none', () => {
    expect(displayWidth(LINE)).toBe(LINE.length);
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('ｱｲｳ')).toBe(3); // halfwidth katakana
    expect(displayWidth('e\u0301te\u0301')).toBe(3);
    expect(displayWidth('👍🏽🇫🇷❤️')).toBe(6);
    expect(displayWidth('\u001b[31mred\u001b[0m')).toBe(3);
  });

  it.each([40, 20])('cuts a live line to %i columns with an ellipsis at the cut', (columns) => {
    const cut = fitToWidth(LINE, columns);
    expect(displayWidth(cut)).toBe(columns);
    expect(cut.endsWith('…')).toBe(true);
    expect(LINE.startsWith(cut.slice(0, -1))).toBe(true);
  });

  it('leaves a line that fits as it is', () => {
    expect(fitToWidth(LINE, LINE.length)).toBe(LINE);
    expect(fitToWidth('short', 20)).toBe('short');
  });

  it('never splits a wide character: it goes whole to the next line or not at all', () => {
    // 8 columns: 7 before the ellipsis hold "ab日本" (6); half of 語 does not fit, so it is left out.
    const cut = fitToWidth('ab日本語です', 8);
    expect(cut).toBe('ab日本…');
    expect(displayWidth(cut)).toBe(7);
    expect(fitToWidth('ab日本語です', 7)).toBe('ab日本…');
  });

  it('never splits a grapheme: a letter keeps its accent, an emoji its modifier and a flag both halves', () => {
    const accented = fitToWidth('e\u0301e\u0301e\u0301e\u0301', 3);
    expect(accented).toBe('e\u0301e\u0301…');
    const emoji = fitToWidth('a👍🏽b🇫🇷c', 6);
    expect(emoji).toBe('a👍🏽b…');
    expect(fitToWidth('ab🇫🇷cd', 4)).toBe('ab…');
    expect(fitToWidth('ab🇫🇷cd', 5)).toBe('ab🇫🇷…');
  });

  it('never splits an escape sequence, and keeps the ones past the cut (a colour reset)', () => {
    const coloured = '\u001b[31mred text that runs long\u001b[0m';
    const cut = fitToWidth(coloured, 10);
    expect(cut).toBe('\u001b[31mred text …\u001b[0m');
    expect(displayWidth(cut)).toBe(10);
  });

  it('a width below one column leaves nothing visible', () => {
    expect(fitToWidth(LINE, 0)).toBe('');
    expect(fitToWidth(LINE, 1)).toBe('…');
  });
});
