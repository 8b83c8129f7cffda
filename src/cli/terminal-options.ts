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
