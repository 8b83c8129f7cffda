import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/** Only what git needs: no global or system config, fixed identities, no prompts. */
export function isolatedEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'TMPDIR', 'SYSTEMROOT']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    HOME: home,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Env Author',
    GIT_AUTHOR_EMAIL: 'env-author@example.test',
    GIT_COMMITTER_NAME: 'Env Committer',
    GIT_COMMITTER_EMAIL: 'env-committer@example.test',
  };
}

export interface GitFixture {
  root: string;
  /** The bare repository standing in for GitHub. */
  origin: string;
  /** Another person's clone: pushes to origin behind issueloop's back. */
  seed: string;
  /** The clone issueloop works in. */
  checkout: string;
  env: Record<string, string>;
  /** Runs git synchronously in `cwd` and returns trimmed stdout. */
  git(cwd: string, ...args: string[]): string;
  /** Writes `files` in `cwd`, commits them and returns the sha. */
  commitFiles(cwd: string, files: Record<string, string>, message: string): string;
  cleanup(): Promise<void>;
}

/** A fixture in a new temporary folder, or in `at` (made if missing, and expected empty). */
export async function createGitFixture(at?: string): Promise<GitFixture> {
  const root = at ?? (await mkdtemp(join(tmpdir(), 'issueloop-git-')));
  if (at !== undefined) await mkdir(at, { recursive: true });
  const env = isolatedEnv(root);
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const origin = join(root, 'origin.git');
  const seed = join(root, 'seed');
  const checkout = join(root, 'checkout');

  git(root, 'init', '--quiet', '--bare', '-b', 'main', origin);
  git(root, 'clone', '--quiet', origin, seed);
  const commitFiles = (cwd: string, files: Record<string, string>, message: string): string => {
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(dirname(join(cwd, name)), { recursive: true });
      writeFileSync(join(cwd, name), content);
    }
    git(cwd, 'add', '-A');
    git(cwd, 'commit', '--quiet', '-m', message);
    return git(cwd, 'rev-parse', 'HEAD');
  };
  commitFiles(seed, { 'README.md': 'hello\n', 'src/app.txt': 'one\ntwo\nthree\n' }, 'initial');
  git(seed, 'push', '--quiet', 'origin', 'main');
  git(root, 'clone', '--quiet', origin, checkout);

  return {
    root,
    origin,
    seed,
    checkout,
    env,
    git,
    commitFiles,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** The repository the session and round tests work on: origin's main has greet.js, which says "helo". */
export const GREETING_TYPO = { 'greet.js': "export const greet = () => 'helo';\n" };

export interface SessionRepo {
  readonly fx: GitFixture;
  readonly stateDir: string;
}

/**
 * For each test: a git fixture whose origin's main has `files`, and an empty state directory; both
 * removed after the test.
 */
export function useSessionRepo(files: Record<string, string>): SessionRepo {
  let fx: GitFixture | undefined;
  let stateDir: string | undefined;
  beforeEach(async () => {
    fx = await createGitFixture();
    fx.commitFiles(fx.seed, files, 'project files');
    fx.git(fx.seed, 'push', '--quiet', 'origin', 'main');
    stateDir = await mkdtemp(join(tmpdir(), 'issueloop-state-'));
  });
  afterEach(async () => {
    await fx?.cleanup();
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });
  const need = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useSessionRepo used outside a test');
    return value;
  };
  return {
    get fx() {
      return need(fx);
    },
    get stateDir() {
      return need(stateDir);
    },
  };
}

/**
 * As `useSessionRepo`, but each test's fixture and state directory are made anew at the same paths,
 * under `live` (one folder per test file): a copy of `live` taken in one test can be put back in
 * another with every absolute path in it (remotes, worktrees) still right.
 */
export function useStableSessionRepo(files: Record<string, string>): SessionRepo & {
  readonly live: string;
  /** Copies `live` as it is now; returns the copy's folder. */
  snapshot(): string;
  /** Puts a snapshot back as `live` (the fixture's files and state directory alike). */
  restore(snapshot: string): void;
} {
  let base: string | undefined;
  let fx: GitFixture | undefined;
  let snapshots = 0;
  const copy = (from: string, to: string) => {
    rmSync(to, { recursive: true, force: true });
    cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  };
  // Made once, copied for each test: one process where a new fixture takes a dozen.
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'issueloop-world-'));
    const live = join(base, 'live');
    fx = await createGitFixture(join(live, 'git'));
    fx.commitFiles(fx.seed, files, 'project files');
    fx.git(fx.seed, 'push', '--quiet', 'origin', 'main');
    await mkdir(join(live, 'state'));
    copy(live, join(base, 'pristine'));
  });
  beforeEach(() => {
    copy(join(need(base), 'pristine'), join(need(base), 'live'));
  });
  afterAll(async () => {
    if (base) await rm(base, { recursive: true, force: true });
  });
  return {
    get fx() {
      return need(fx);
    },
    get stateDir() {
      return join(need(base), 'live', 'state');
    },
    get live() {
      return join(need(base), 'live');
    },
    snapshot() {
      snapshots += 1;
      const snapshot = join(need(base), `snapshot-${snapshots}`);
      copy(join(need(base), 'live'), snapshot);
      return snapshot;
    },
    restore(snapshot) {
      copy(snapshot, join(need(base), 'live'));
    },
  };
}

function need<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('a session repo used outside a test');
  return value;
}
