import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface ScratchRepo {
  /** The bare repository standing in for GitHub's copy: runs fetch from and push to it. */
  origin: string;
  /** The clone a run works in, with `files` committed on main and pushed. */
  checkout: string;
}

/**
 * Only what git needs, built from scratch: global and system configuration ignored (an empty
 * `.gitconfig` under `root/home`), fixed identities, so a scratch repository behaves the same on
 * every machine and never touches the caller's ~/.gitconfig, credential helpers or tokens.
 */
export async function scratchGitEnv(
  root: string,
  options: { path: string; name: string; email: string },
): Promise<Record<string, string>> {
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  await writeFile(join(home, '.gitconfig'), '');
  return {
    PATH: options.path,
    HOME: home,
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: options.name,
    GIT_AUTHOR_EMAIL: options.email,
    GIT_COMMITTER_NAME: options.name,
    GIT_COMMITTER_EMAIL: options.email,
  };
}

/** `root/origin.git` (bare) and `root/<name>` with `files` committed on main and pushed to origin. */
export async function createScratchRepo(options: {
  root: string;
  name: string;
  files: Readonly<Record<string, string>>;
  message: string;
  env: Record<string, string>;
}): Promise<ScratchRepo> {
  const { root, env } = options;
  const origin = join(root, 'origin.git');
  const checkout = join(root, options.name);
  // Plain git, not the harness's hardened runner (the emulators depend on core/ only), with what of
  // it matters here: no prompt, and a git that hangs is stopped.
  const git = (cwd: string, ...args: string[]) =>
    execFileAsync('git', args, { cwd, env: { ...env, GIT_TERMINAL_PROMPT: '0' }, timeout: 60_000 });
  await git(root, 'init', '--quiet', '--bare', '-b', 'main', origin);
  await git(root, 'init', '--quiet', '-b', 'main', checkout);
  for (const [name, content] of Object.entries(options.files)) {
    await mkdir(dirname(join(checkout, name)), { recursive: true });
    await writeFile(join(checkout, name), content);
  }
  await git(checkout, 'add', '-A');
  await git(checkout, 'commit', '--quiet', '-m', options.message);
  await git(checkout, 'remote', 'add', 'origin', origin);
  await git(checkout, 'push', '--quiet', '-u', 'origin', 'main');
  return { origin, checkout };
}
