import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addWorktree, commitAll, diffStat, parseNumstat } from '../../../src/session/git/index.js';
import { createGitFixture, type GitFixture } from './git-fixture.js';

let fx: GitFixture;
let wt: string;
let base: string;

beforeEach(async () => {
  fx = await createGitFixture();
  wt = join(fx.root, 'wt');
  base = await addWorktree(
    { checkout: fx.checkout, path: wt, branch: 'issueloop/issue-3', startPoint: 'origin/main' },
    { env: fx.env },
  );
});

afterEach(async () => {
  await fx.cleanup();
});

describe('diffStat', () => {
  it('is all zero when nothing changed', async () => {
    expect(await diffStat(wt, base, { env: fx.env })).toEqual({ files: 0, insertions: 0, deletions: 0 });
  });

  it('counts committed and uncommitted changes against the base, a binary file as 0/0', async () => {
    // src/app.txt: "one two three" → "one 2 three four": 2 insertions, 1 deletion.
    await writeFile(join(wt, 'src', 'app.txt'), 'one\n2\nthree\nfour\n');
    await writeFile(join(wt, 'new.txt'), 'a\nb\nc\n');
    await writeFile(join(wt, 'image.bin'), Buffer.from([0, 1, 2, 0, 255, 0]));
    await commitAll(wt, { message: 'work', author: { name: 'a', email: 'a@b.test' } }, { env: fx.env });
    // Uncommitted: README.md (1 line) deleted.
    await rm(join(wt, 'README.md'));

    expect(await diffStat(wt, base, { env: fx.env })).toEqual({ files: 4, insertions: 5, deletions: 2 });
  });

  it('counts a rename as one file', async () => {
    fx.git(wt, 'mv', 'src/app.txt', 'src/renamed.txt');
    expect(await diffStat(wt, base, { env: fx.env })).toEqual({ files: 1, insertions: 0, deletions: 0 });
  });

  it('fails as a GitError for an unknown base', async () => {
    await expect(diffStat(wt, 'no-such-rev', { env: fx.env })).rejects.toMatchObject({ code: 'git_failed' });
  });
});

describe('parseNumstat', () => {
  it('sums lines and counts binary entries as files', () => {
    expect(parseNumstat('3\t1\ta.txt\n-\t-\tb.png\n0\t0\told => new\n')).toEqual({
      files: 3,
      insertions: 3,
      deletions: 1,
    });
  });
});
