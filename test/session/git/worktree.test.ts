import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueBranch } from '../../../src/github/pulls.js';
import {
  addWorktree,
  defaultRemoteBranch,
  fetchBranch,
  headSha,
  removeWorktree,
} from '../../../src/session/git/index.js';
import { createGitFixture, type GitFixture } from './git-fixture.js';

let fx: GitFixture;

beforeEach(async () => {
  fx = await createGitFixture();
});

afterEach(async () => {
  await fx.cleanup();
});

function worktreeList(): string {
  return fx.git(fx.checkout, 'worktree', 'list', '--porcelain');
}

describe('fetchBranch and defaultRemoteBranch', () => {
  it('reads the default branch the clone recorded, and undefined once it is unset', async () => {
    expect(await defaultRemoteBranch(fx.checkout, 'origin', { env: fx.env })).toBe('main');
    fx.git(fx.checkout, 'remote', 'set-head', 'origin', '--delete');
    expect(await defaultRemoteBranch(fx.checkout, 'origin', { env: fx.env })).toBeUndefined();
  });

  it('returns the sha of a commit pushed by someone else after the clone', async () => {
    const before = fx.git(fx.checkout, 'rev-parse', 'origin/main');
    const pushed = fx.commitFiles(fx.seed, { 'later.txt': 'from someone else\n' }, 'later');
    fx.git(fx.seed, 'push', '--quiet', 'origin', 'main');
    const fetched = await fetchBranch(fx.checkout, 'origin', 'main', { env: fx.env });
    expect(fetched).toBe(pushed);
    expect(fetched).not.toBe(before);
    expect(fx.git(fx.checkout, 'rev-parse', 'refs/remotes/origin/main')).toBe(pushed);
  });

  it('regression: sessions that start together all fetch the new base ("unable to update local ref" failed one)', async () => {
    for (let i = 0; i < 3; i += 1) {
      const pushed = fx.commitFiles(fx.seed, { [`later-${i}.txt`]: `${i}\n` }, `later ${i}`);
      fx.git(fx.seed, 'push', '--quiet', 'origin', 'main');
      const fetched = await Promise.all(
        [1, 2, 3, 4].map(() => fetchBranch(fx.checkout, 'origin', 'main', { env: fx.env })),
      );
      expect(fetched).toEqual([pushed, pushed, pushed, pushed]);
    }
  });

  it('classifies a branch missing on the remote as not_found', async () => {
    await expect(fetchBranch(fx.checkout, 'origin', 'no-such-branch', { env: fx.env })).rejects.toMatchObject(
      {
        code: 'git_failed',
        errorClass: 'not_found',
      },
    );
  });

  it('refuses a remote name git would read as an option', async () => {
    await expect(
      fetchBranch(fx.checkout, '--upload-pack=touch pwned', 'main', { env: fx.env }),
    ).rejects.toMatchObject({ code: 'git_invalid_argument' });
    expect(existsSync(join(fx.checkout, 'pwned'))).toBe(false);
  });
});

describe('addWorktree', () => {
  it('regression: sessions adding and removing worktrees of one checkout at once never prune each other half-made', async () => {
    const opts = { env: fx.env };
    const path = (n: number) => join(fx.root, 'wt', `issue-${n}`);
    const add = (n: number) =>
      addWorktree({ checkout: fx.checkout, path: path(n), branch: issueBranch(n), startPoint: 'HEAD' }, opts);
    for (let round = 0; round < 3; round++) {
      await Promise.all([add(1), add(2), add(3), add(4), removeWorktree(fx.checkout, path(5), opts), add(6)]);
      for (const n of [1, 2, 3, 4, 6]) expect(await headSha(path(n), opts)).toMatch(/^[0-9a-f]{40}$/);
      await Promise.all([1, 2, 3, 4, 6].map((n) => removeWorktree(fx.checkout, path(n), opts)));
    }
    expect(worktreeList()).not.toContain('issue-');
  });

  it('starts from the freshly fetched origin/main, including a commit pushed after the clone', async () => {
    const pushed = fx.commitFiles(fx.seed, { 'later.txt': 'from someone else\n' }, 'later');
    fx.git(fx.seed, 'push', '--quiet', 'origin', 'main');
    await fetchBranch(fx.checkout, 'origin', 'main', { env: fx.env });

    const path = join(fx.root, 'wt', 'issue-7');
    const sha = await addWorktree(
      { checkout: fx.checkout, path, branch: issueBranch(7), startPoint: 'origin/main' },
      { env: fx.env },
    );
    expect(sha).toBe(pushed);
    expect(await headSha(path, { env: fx.env })).toBe(pushed);
    expect(existsSync(join(path, 'later.txt'))).toBe(true);
    expect(fx.git(path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/issueloop/issue-7');
    expect(worktreeList()).toContain(`worktree ${await realpath(path)}`);
  });

  it('replaces a registered worktree a crashed run left behind, dirty and locked', async () => {
    const path = join(fx.root, 'wt', 'issue-8');
    const input = { checkout: fx.checkout, path, branch: issueBranch(8), startPoint: 'origin/main' };
    await addWorktree(input, { env: fx.env });
    await writeFile(join(path, 'half-done.txt'), 'agent output\n');
    await writeFile(join(path, 'README.md'), 'edited\n');
    fx.git(fx.checkout, 'worktree', 'lock', '--reason', 'initializing', path);

    const sha = await addWorktree(input, { env: fx.env });
    expect(sha).toBe(fx.git(fx.checkout, 'rev-parse', 'origin/main'));
    expect(existsSync(join(path, 'half-done.txt'))).toBe(false);
    expect(fx.git(path, 'status', '--porcelain')).toBe('');
    expect(worktreeList().match(/^worktree /gm)).toHaveLength(2);
  });

  it('replaces a registration whose directory is gone, on the same branch', async () => {
    const path = join(fx.root, 'wt', 'issue-9');
    const input = { checkout: fx.checkout, path, branch: issueBranch(9), startPoint: 'origin/main' };
    await addWorktree(input, { env: fx.env });
    await rm(path, { recursive: true, force: true });

    await addWorktree(input, { env: fx.env });
    expect(fx.git(path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/issueloop/issue-9');
    expect(worktreeList().match(/^worktree /gm)).toHaveLength(2);
  });

  it('replaces a plain leftover directory that was never registered', async () => {
    const path = join(fx.root, 'wt', 'issue-10');
    await mkdir(join(path, 'nested'), { recursive: true });
    await writeFile(join(path, 'nested', 'junk.txt'), 'junk\n');

    await addWorktree(
      { checkout: fx.checkout, path, branch: issueBranch(10), startPoint: 'origin/main' },
      { env: fx.env },
    );
    expect(existsSync(join(path, 'nested'))).toBe(false);
    expect(existsSync(join(path, 'README.md'))).toBe(true);
  });

  it('refuses a path that is, or contains, the checkout', async () => {
    for (const path of [fx.checkout, fx.root]) {
      await expect(
        addWorktree({ checkout: fx.checkout, path, branch: 'x', startPoint: 'origin/main' }, { env: fx.env }),
      ).rejects.toMatchObject({ code: 'git_invalid_argument' });
    }
    expect(existsSync(join(fx.checkout, 'README.md'))).toBe(true);
  });
});

/** fx.env with a `git` first on PATH that logs each command line to the returned file, then runs git. */
async function loggingGit(): Promise<{ env: Record<string, string>; commands: () => Promise<string[]> }> {
  const bin = join(fx.root, 'logging-bin');
  const log = join(fx.root, 'git-commands.log');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8', env: fx.env }).trim();
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
  await chmod(join(bin, 'git'), 0o755);
  const env = { ...fx.env, PATH: `${bin}:${fx.env.PATH ?? ''}` };
  const commands = async () =>
    (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
  return { env, commands };
}

describe('what a worktree add and remove ask git', () => {
  it('asks for the checkout root once per run and lists the worktrees once per add and per remove', async () => {
    const { env, commands } = await loggingGit();
    const path = join(fx.root, 'wt', 'issue-20');
    const input = { checkout: fx.checkout, path, branch: issueBranch(20), startPoint: 'origin/main' };
    for (let i = 0; i < 2; i++) {
      await addWorktree(input, { env });
      await removeWorktree(fx.checkout, path, { env });
    }
    const seen = await commands();
    const count = (pattern: RegExp) => seen.filter((line) => pattern.test(line)).length;
    expect(count(/ worktree add /)).toBe(2);
    expect(count(/ worktree remove /)).toBe(2);
    expect(count(/ rev-parse --show-toplevel/)).toBe(1);
    expect(count(/ worktree list /)).toBe(4);
    expect(count(/ worktree prune/)).toBe(0);
    expect(worktreeList()).not.toContain('issue-20');
    expect(existsSync(path)).toBe(false);
  });

  it('a checkout root resolved once per run still refuses a worktree path that is or contains the checkout', async () => {
    const path = join(fx.root, 'wt', 'issue-21');
    await addWorktree(
      { checkout: fx.checkout, path, branch: issueBranch(21), startPoint: 'origin/main' },
      { env: fx.env },
    );
    for (const refused of [fx.checkout, fx.root, join(fx.checkout, '..')]) {
      await expect(
        addWorktree(
          { checkout: fx.checkout, path: refused, branch: 'x', startPoint: 'origin/main' },
          { env: fx.env },
        ),
      ).rejects.toMatchObject({ code: 'git_invalid_argument' });
      await expect(removeWorktree(fx.checkout, refused, { env: fx.env })).rejects.toMatchObject({
        code: 'git_invalid_argument',
      });
    }
    expect(existsSync(join(fx.checkout, 'README.md'))).toBe(true);
    expect(existsSync(join(path, 'README.md'))).toBe(true);
  });

  it('a removal git refuses still ends unregistered: the leftover registration is pruned', async () => {
    const { env, commands } = await loggingGit();
    const path = join(fx.root, 'wt', 'issue-22');
    await addWorktree(
      { checkout: fx.checkout, path, branch: issueBranch(22), startPoint: 'origin/main' },
      { env },
    );
    // A file where the admin dir's gitdir points elsewhere makes `worktree remove` fail validation.
    await rm(join(path, '.git'), { force: true });
    await removeWorktree(fx.checkout, path, { env });
    expect((await commands()).filter((line) => / worktree (remove|prune)/.test(line))).toHaveLength(2);
    expect(worktreeList()).not.toContain('issue-22');
    expect(existsSync(path)).toBe(false);
  });
});

describe('removeWorktree', () => {
  it('unregisters and deletes the worktree', async () => {
    const path = join(fx.root, 'wt', 'issue-11');
    await addWorktree(
      { checkout: fx.checkout, path, branch: issueBranch(11), startPoint: 'origin/main' },
      { env: fx.env },
    );
    await writeFile(join(path, 'untracked.txt'), 'x\n');
    const real = await realpath(path);
    expect(worktreeList()).toContain(real);

    await removeWorktree(fx.checkout, path, { env: fx.env });
    expect(worktreeList()).not.toContain(real);
    expect(existsSync(path)).toBe(false);
  });

  it('is fine when the path is already gone, registered or not', async () => {
    const path = join(fx.root, 'wt', 'issue-12');
    await addWorktree(
      { checkout: fx.checkout, path, branch: issueBranch(12), startPoint: 'origin/main' },
      { env: fx.env },
    );
    await rm(path, { recursive: true, force: true });

    await removeWorktree(fx.checkout, path, { env: fx.env });
    expect(worktreeList()).not.toContain('issue-12');
    await expect(removeWorktree(fx.checkout, path, { env: fx.env })).resolves.toBeUndefined();
  });
});
