import type { CliIo } from './command-io.js';

/**
 * How the CLI may draw on stderr, from the process's environment: a terminal gets readable log lines
 * and live progress lines; one that cannot move its cursor (TERM=dumb, as Emacs shells set it) gets
 * the readable lines only; https://no-color.org and a dumb terminal (which shows escape sequences as
 * they are) get no colours.
 */
export function terminalOptions(
  env: Readonly<Record<string, string | undefined>>,
  stderrIsTTY: boolean,
): Pick<CliIo, 'isTTY' | 'noCursor' | 'color'> {
  const dumb = env.TERM === 'dumb';
  return {
    isTTY: stderrIsTTY,
    ...(dumb ? { noCursor: true } : {}),
    color: !env.NO_COLOR && !dumb,
  };
}

/** What `terminalWidth` reads of a stream: a tty.WriteStream has both. */
export interface SizedStream {
  columns?: number;
  on(event: 'resize', listener: () => void): unknown;
  off(event: 'resize', listener: () => void): unknown;
}

/**
 * The width of the terminal live lines are drawn on, read anew at every redraw, and its resizes
 * (SIGWINCH, which Node turns into the stream's 'resize' event), so a narrowed window is redrawn at once.
 */
export function terminalWidth(stream: SizedStream): Pick<CliIo, 'columns' | 'onResize'> {
  return {
    columns: () => stream.columns,
    onResize: (listener) => {
      stream.on('resize', listener);
      return () => {
        stream.off('resize', listener);
      };
    },
  };
}
