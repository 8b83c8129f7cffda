import { execFileSync } from 'node:child_process';

/** Who a commit is by and when, as git's environment variables take it. */
export interface GitIdentity {
  name: string;
  email: string;
  /** Epoch seconds. */
  time: number;
}

export interface CommitInfo {
  sha: string;
  tree: string;
  author: GitIdentity;
  /** Who made the commit (a rebase or a web edit differs from the author). */
  committer?: GitIdentity;
  message: string;
}

/**
 * The bare repository a test hands the emulator as GitHub's copy (`origin`). Git runs with no
 * system or global configuration and no hooks, so whatever the caller's ~/.gitconfig says, the
 * emulator reads the same commits and writes the same merges.
 */
export interface GitOrigin {
  readonly path: string;
  /** The commit `refs/heads/<branch>` points at, or undefined when there is no such branch. */
  branchSha(branch: string): string | undefined;
  /** A commit named by a sha, branch or tag, or undefined when it names none. */
  resolve(name: string): string | undefined;
  /** `git merge-tree --write-tree`: the merged tree, or undefined when the two conflict. */
  mergeTree(ours: string, theirs: string): string | undefined;
  commitTree(
    tree: string,
    parents: string[],
    message: string,
    author: GitIdentity,
    committer: GitIdentity,
  ): string;
  /** Moves a branch from `from` to `to`; fails (throws) when someone moved it meanwhile. */
  updateBranch(branch: string, to: string, from: string): void;
  /** The commits reachable from `head` but not from `base`, oldest first. */
  commitsBetween(base: string, head: string): CommitInfo[];
  /**
   * The unified diff of one file (three lines of context), empty when it did not change; with
   * `sinceMergeBase`, from where `to` forked off `from`, as a PR's diff is.
   */
  diff(from: string, to: string, path: string, sinceMergeBase?: boolean): string;
  /** The file's lines at a commit, or undefined when it has no such file. */
  fileLines(commit: string, path: string): string[] | undefined;
}

const SHA = /^[0-9a-f]{40}$/;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    ...extra,
  };
}

function identityEnv(role: 'AUTHOR' | 'COMMITTER', who: GitIdentity): Record<string, string> {
  return {
    [`GIT_${role}_NAME`]: who.name,
    [`GIT_${role}_EMAIL`]: who.email,
    [`GIT_${role}_DATE`]: `@${who.time} +0000`,
  };
}

/** Splits `git cat-file commit` output into what a replayed commit needs. */
function parseCommit(sha: string, text: string): CommitInfo {
  const split = text.indexOf('\n\n');
  const header = text.slice(0, split);
  const tree = /^tree ([0-9a-f]{40})$/m.exec(header)?.[1] ?? '';
  const author = /^author (.*) <(.*)> (\d+) [+-]\d{4}$/m.exec(header);
  const committer = /^committer (.*) <(.*)> (\d+) [+-]\d{4}$/m.exec(header);
  return {
    sha,
    tree,
    author: { name: author?.[1] ?? '', email: author?.[2] ?? '', time: Number(author?.[3] ?? 0) },
    committer: { name: committer?.[1] ?? '', email: committer?.[2] ?? '', time: Number(committer?.[3] ?? 0) },
    message: split < 0 ? '' : text.slice(split + 2),
  };
}

export function openOrigin(path: string): GitOrigin {
  const git = (args: string[], extra?: Record<string, string>): string =>
    execFileSync('git', ['--git-dir', path, '-c', 'core.hooksPath=/dev/null', ...args], {
      env: env(extra),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
  const tryGit = (args: string[]): string | undefined => {
    try {
      return git(args);
    } catch {
      return undefined;
    }
  };
  const revParse = (name: string) =>
    tryGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${name}^{commit}`])?.trim();

  return {
    path,
    branchSha: (branch) => revParse(`refs/heads/${branch}`),
    resolve: (name) => (name.startsWith('-') ? undefined : revParse(name)),
    mergeTree(ours, theirs) {
      try {
        return git(['merge-tree', '--write-tree', ours, theirs]).trim();
      } catch (error) {
        // Exit status 1 is a conflict; anything else is a broken repository, which the caller should see.
        if ((error as { status?: number }).status === 1) return undefined;
        throw error;
      }
    },
    commitTree(tree, parents, message, author, committer) {
      const args = ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message];
      return git(args, { ...identityEnv('AUTHOR', author), ...identityEnv('COMMITTER', committer) }).trim();
    },
    updateBranch(branch, to, from) {
      git(['update-ref', `refs/heads/${branch}`, to, from]);
    },
    commitsBetween(base, head) {
      const list = git(['rev-list', '--reverse', head, `^${base}`])
        .split('\n')
        .filter((s) => SHA.test(s));
      return list.map((sha) => parseCommit(sha, git(['cat-file', 'commit', sha])));
    },
    diff: (from, to, file, sinceMergeBase = false) =>
      tryGit([
        'diff',
        '--no-color',
        '-U3',
        ...(sinceMergeBase ? [`${from}...${to}`] : [from, to]),
        '--',
        file,
      ]) ?? '',
    fileLines(commit, file) {
      const text = tryGit(['cat-file', 'blob', `${commit}:${file}`]);
      return text === undefined ? undefined : text.replace(/\n$/, '').split('\n');
    },
  };
}
