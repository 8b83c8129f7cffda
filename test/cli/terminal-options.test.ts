import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { terminalOptions, terminalWidth } from '../../src/cli/terminal-options.js';

describe('terminalOptions: what the CLI may draw on stderr', () => {
  it('a terminal gets colours and live lines; a pipe is no terminal', () => {
    expect(terminalOptions({ TERM: 'xterm-256color' }, true)).toEqual({ isTTY: true, color: true });
    expect(terminalOptions({ TERM: 'xterm-256color' }, false)).toEqual({ isTTY: false, color: true });
  });

  it('regression: TERM=dumb cannot move its cursor and shows escape sequences as they are: neither live lines nor colours', () => {
    expect(terminalOptions({ TERM: 'dumb' }, true)).toEqual({ isTTY: true, noCursor: true, color: false });
  });

  it('NO_COLOR (any non-empty value) drops the colours but keeps the live lines; empty does not', () => {
    expect(terminalOptions({ TERM: 'xterm-256color', NO_COLOR: '1' }, true)).toEqual({
      isTTY: true,
      color: false,
    });
    expect(terminalOptions({ TERM: 'xterm-256color', NO_COLOR: '' }, true)).toEqual({
      isTTY: true,
      color: true,
    });
  });
});

describe('newcomer: live lines fit a narrow terminal (cut to its width)', () => {
  it("reads the stream's width anew each time and passes on its resize events until stopped", () => {
    const stream = Object.assign(new EventEmitter(), { columns: 80 });
    const { columns, onResize } = terminalWidth(stream);
    expect(columns?.()).toBe(80);
    let resized = 0;
    const stop = onResize?.(() => resized++);
    stream.columns = 20;
    stream.emit('resize');
    expect(columns?.()).toBe(20);
    expect(resized).toBe(1);
    stop?.();
    stream.emit('resize');
    expect(resized).toBe(1);
    expect(stream.listenerCount('resize')).toBe(0);
  });
});
