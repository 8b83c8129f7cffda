/**
 * The exit codes users' scripts and the GitHub Action rely on (design.md). Which one an error ends a
 * command with is `exitCodeFor` (exit-code-for.ts): apart, so `issueloop --help` loads no classifier.
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
