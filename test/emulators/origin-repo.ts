import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { createScratchRepo, scratchGitEnv } from '../../src/emulators/scratch-repo.js';

const execFileAsync = promisify(execFile);

export interface OriginRepo {
  /** The bare repository to hand the emulator as `origin`. */
  origin: string;
  /** Commits `files` on `branch` (created from `from` when new) and pushes it; the new head's sha. */
  commitOn(branch: string, files: Record<string, string>, message: string, from?: string): Promise<string>;
  /** Git in the bare repository itself, to see what the emulator wrote there. */
  bare(...args: string[]): Promise<string>;
  cleanup(): Promise<void>;
}

/** A bare repository with `files` on main, plus a clone to push branches from, in a temp dir. */
export async function originRepo(files: Record<string, string>): Promise<OriginRepo> {
  const root = await mkdtemp(join(tmpdir(), 'emulator-origin-'));
  const env = await scratchGitEnv(root, {
    path: process.env.PATH ?? '/usr/bin:/bin',
    name: 'Octo Cat',
    email: 'octocat@example.com',
  });
  const { origin, checkout } = await createScratchRepo({
    root,
    name: 'work',
    files,
    message: 'Initial',
    env,
  });
  const run = async (cwd: string, args: string[]) =>
    (await execFileAsync('git', args, { cwd, env: { ...env, GIT_TERMINAL_PROMPT: '0' } })).stdout.trim();
  const git = (...args: string[]) => run(checkout, args);
  return {
    origin,
    async commitOn(branch, changes, message, from = 'main') {
      await git('fetch', '--quiet', 'origin');
      const known = (await git('ls-remote', '--heads', 'origin', branch)) !== '';
      await git('checkout', '--quiet', '-B', branch, known ? `origin/${branch}` : `origin/${from}`);
      for (const [name, content] of Object.entries(changes)) {
        await mkdir(dirname(join(checkout, name)), { recursive: true });
        await writeFile(join(checkout, name), content);
      }
      await git('add', '-A');
      await git('commit', '--quiet', '-m', message);
      await git('push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
      return git('rev-parse', 'HEAD');
    },
    bare: (...args) => run(origin, args),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
