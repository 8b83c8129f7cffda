import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A stand-in for GitHub's `gh` on PATH (never a real one): `gh auth token` prints `token` (as gh
 * does, with a line end), or fails as a logged-out gh does when `token` is undefined. Every call's
 * arguments are appended to a file the test reads back.
 */
export interface ScriptedGh {
  /** The directory to put first on PATH. */
  dir: string;
  /** PATH with the stand-in first. */
  path: string;
  /** The argument lists gh was called with, one string each. */
  calls(): Promise<string[]>;
  cleanup(): Promise<void>;
}

export async function scriptedGh(token: string | undefined): Promise<ScriptedGh> {
  const dir = await mkdtemp(join(tmpdir(), 'issueloop-gh-'));
  const calls = join(dir, 'calls');
  const answer =
    token === undefined
      ? `echo 'no oauth token found for github.com' >&2\nexit 1`
      : `cat "${join(dir, 'token')}"`;
  if (token !== undefined) await writeFile(join(dir, 'token'), token);
  await writeFile(
    join(dir, 'gh'),
    `#!/bin/sh\necho "$*" >> "${calls}"\n[ "$1 $2" = "auth token" ] || exit 2\n${answer}\n`,
  );
  await chmod(join(dir, 'gh'), 0o755);
  return {
    dir,
    path: `${dir}:${process.env.PATH ?? ''}`,
    calls: async () =>
      (await readFile(calls, 'utf8').catch(() => '')).split('\n').filter((line) => line !== ''),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
