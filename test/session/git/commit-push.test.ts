import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueBranch } from '../../../src/github/pulls.js';
import {
  addWorktree,
  commitAll,
  GitError,
  headSha,
  pushBranch,
  remoteBranchSha,
} from '../../../src/session/git/index.js';
import { createGitFixture, type GitFixture } from './git-fixture.js';

const author = { name: 'issueloop[bot]', email: 'issueloop-bot@users.noreply.example.test' };
const branch = issueBranch(42);

let fx: GitFixture;
let wt: string;

beforeEach(async () => {
  fx = await createGitFixture();
  wt = join(fx.root, 'wt');
  await addWorktree({ checkout: fx.checkout, path: wt, branch, startPoint: 'origin/main' }, { env: fx.env });
});

afterEach(async () => {
  await fx.cleanup();
});

function originSha(ref: string): string {
  return fx.git(fx.origin, 'rev-parse', ref);
}

describe('commitAll', () => {
  it('commits everything as the given author and committer, whatever the environment says', async () => {
    const before = await headSha(wt, { env: fx.env });
    await writeFile(join(wt, 'fix.txt'), 'fixed\n');
    await writeFile(join(wt, 'README.md'), 'hello, again\n');
    const message = 'Fix #42: the thing\n\n# not a comment: kept\n';

    const sha = await commitAll(wt, { message, author }, { env: fx.env });
    expect(sha).toBe(fx.git(wt, 'rev-parse', 'HEAD'));
    expect(sha).not.toBe(before);
    expect(fx.git(wt, 'log', '-1', '--format=%an <%ae>')).toBe(`${author.name} <${author.email}>`);
    expect(fx.git(wt, 'log', '-1', '--format=%cn <%ce>')).toBe(`${author.name} <${author.email}>`);
    expect(fx.git(wt, 'log', '-1', '--format=%B')).toBe(message.trim());
    expect(fx.git(wt, 'status', '--porcelain')).toBe('');
    expect(fx.git(wt, 'rev-parse', 'HEAD~1')).toBe(before);
  });

  it('returns undefined and makes no commit on a clean tree', async () => {
    const before = await headSha(wt, { env: fx.env });
    expect(await commitAll(wt, { message: 'nothing', author }, { env: fx.env })).toBeUndefined();
    expect(await headSha(wt, { env: fx.env })).toBe(before);
  });

  it('skips the repository hooks, which could block or prompt', async () => {
    const hooks = join(fx.root, 'hooks');
    const marker = join(fx.root, 'hook-ran');
    await mkdir(hooks);
    for (const hook of ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit']) {
      await writeFile(join(hooks, hook), `#!/bin/sh\necho ${hook} >> '${marker}'\nexit 1\n`);
      await chmod(join(hooks, hook), 0o755);
    }
    fx.git(fx.checkout, 'config', 'core.hooksPath', hooks);
    await writeFile(join(wt, 'fix.txt'), 'fixed\n');

    const sha = await commitAll(wt, { message: 'with hooks', author }, { env: fx.env });
    expect(sha).toBe(fx.git(wt, 'rev-parse', 'HEAD'));
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses an author git would mangle', async () => {
    await writeFile(join(wt, 'fix.txt'), 'fixed\n');
    await expect(
      commitAll(wt, { message: 'x', author: { name: 'Eve <evil@x>', email: 'a@b' } }, { env: fx.env }),
    ).rejects.toMatchObject({ code: 'git_invalid_argument' });
  });
});

describe('remoteBranchSha and pushBranch', () => {
  it('creates the branch in origin with the pushed sha', async () => {
    expect(await remoteBranchSha(fx.checkout, 'origin', branch, { env: fx.env })).toBeUndefined();
    await writeFile(join(wt, 'fix.txt'), 'fixed\n');
    const sha = await commitAll(wt, { message: 'fix', author }, { env: fx.env });

    const pushed = await pushBranch(
      wt,
      { remote: 'origin', branch, expectedRemoteSha: undefined },
      { env: fx.env },
    );
    expect(pushed).toBe(sha);
    expect(await remoteBranchSha(fx.checkout, 'origin', branch, { env: fx.env })).toBe(sha);
    expect(originSha(`refs/heads/${branch}`)).toBe(sha);
  });

  it('matches the exact ref only, not a longer ref that ends the same way', async () => {
    const main = originSha('main');
    fx.git(fx.seed, 'push', '--quiet', 'origin', `${main}:refs/heads/other/${branch}`);
    expect(await remoteBranchSha(fx.checkout, 'origin', branch, { env: fx.env })).toBeUndefined();
  });

  it('overwrites the branch with an amended commit when the expected sha is right', async () => {
    await writeFile(join(wt, 'fix.txt'), 'first try\n');
    const first = await commitAll(wt, { message: 'fix', author }, { env: fx.env });
    await pushBranch(wt, { remote: 'origin', branch, expectedRemoteSha: undefined }, { env: fx.env });
    await writeFile(join(wt, 'fix.txt'), 'second try\n');
    fx.git(wt, 'commit', '--quiet', '--amend', '-a', '--no-edit');
    const amended = fx.git(wt, 'rev-parse', 'HEAD');
    expect(amended).not.toBe(first);

    const pushed = await pushBranch(
      wt,
      { remote: 'origin', branch, expectedRemoteSha: first },
      { env: fx.env },
    );
    expect(pushed).toBe(amended);
    expect(originSha(`refs/heads/${branch}`)).toBe(amended);
  });

  it('fails as a conflict and leaves origin unchanged when someone else pushed since', async () => {
    await writeFile(join(wt, 'fix.txt'), 'ours\n');
    const ours = await commitAll(wt, { message: 'fix', author }, { env: fx.env });
    await pushBranch(wt, { remote: 'origin', branch, expectedRemoteSha: undefined }, { env: fx.env });
    // Someone else force-pushes the branch.
    fx.git(fx.seed, 'fetch', '--quiet', 'origin', branch);
    fx.git(fx.seed, 'checkout', '--quiet', '-b', 'theirs', 'FETCH_HEAD');
    const theirs = fx.commitFiles(fx.seed, { 'theirs.txt': 'theirs\n' }, 'theirs');
    fx.git(fx.seed, 'push', '--quiet', '--force', 'origin', `HEAD:refs/heads/${branch}`);
    await writeFile(join(wt, 'fix.txt'), 'ours, amended\n');
    fx.git(wt, 'commit', '--quiet', '--amend', '-a', '--no-edit');

    const error = await pushBranch(
      wt,
      { remote: 'origin', branch, expectedRemoteSha: ours },
      { env: fx.env },
    ).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(GitError);
    expect(error).toMatchObject({ code: 'git_failed', errorClass: 'conflict' });
    expect((error as GitError).message).toMatch(/stale info|rejected/);
    expect(originSha(`refs/heads/${branch}`)).toBe(theirs);
  });

  it('fails as a conflict when the branch must not exist but does', async () => {
    fx.git(fx.seed, 'push', '--quiet', 'origin', `main:refs/heads/${branch}`);
    const before = originSha(`refs/heads/${branch}`);
    await writeFile(join(wt, 'fix.txt'), 'ours\n');
    await commitAll(wt, { message: 'fix', author }, { env: fx.env });

    await expect(
      pushBranch(wt, { remote: 'origin', branch, expectedRemoteSha: undefined }, { env: fx.env }),
    ).rejects.toMatchObject({ errorClass: 'conflict' });
    expect(originSha(`refs/heads/${branch}`)).toBe(before);
  });

  it('refuses an expected sha that is not a full object id', async () => {
    await expect(
      pushBranch(wt, { remote: 'origin', branch, expectedRemoteSha: 'main' }, { env: fx.env }),
    ).rejects.toMatchObject({ code: 'git_invalid_argument' });
  });

  it('pushes the commit it is given by its sha, and refuses a sha that is not a full object id', async () => {
    await writeFile(join(wt, 'fix.txt'), 'fixed\n');
    const sha = await commitAll(wt, { message: 'fix', author }, { env: fx.env });
    if (sha === undefined) throw new Error('commitAll made no commit');

    const pushed = await pushBranch(
      wt,
      { remote: 'origin', branch, expectedRemoteSha: undefined, sha },
      { env: fx.env },
    );
    expect(pushed).toBe(sha);
    expect(originSha(`refs/heads/${branch}`)).toBe(sha);
    await expect(
      pushBranch(wt, { remote: 'origin', branch, expectedRemoteSha: sha, sha: 'HEAD' }, { env: fx.env }),
    ).rejects.toMatchObject({ code: 'git_invalid_argument' });
    expect(originSha(`refs/heads/${branch}`)).toBe(sha);
  });
});
