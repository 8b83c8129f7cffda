import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addWorktree,
  type ChangedFile,
  changedFiles,
  parsePorcelainZ,
} from '../../../src/session/git/index.js';
import { createGitFixture, type GitFixture } from './git-fixture.js';

let fx: GitFixture;
let wt: string;

beforeEach(async () => {
  fx = await createGitFixture();
  wt = join(fx.root, 'wt');
  await addWorktree(
    { checkout: fx.checkout, path: wt, branch: 'issueloop/issue-1', startPoint: 'origin/main' },
    { env: fx.env },
  );
});

afterEach(async () => {
  await fx.cleanup();
});

function byPath(files: ChangedFile[]): ChangedFile[] {
  return [...files].sort((a, b) => a.path.localeCompare(b.path));
}

describe('changedFiles', () => {
  it('is empty on a clean worktree', async () => {
    expect(await changedFiles(wt, { env: fx.env })).toEqual([]);
  });

  it('reports new, modified, deleted and renamed files, with spaces and non-ASCII names', async () => {
    fx.commitFiles(wt, { 'old name.txt': 'to be moved\n', 'gone.txt': 'bye\n' }, 'more files');
    await mkdir(join(wt, 'docs', 'sub dir'), { recursive: true });
    await writeFile(join(wt, 'docs', 'sub dir', 'naïve résumé 日本.md'), 'new\n');
    await writeFile(join(wt, 'with "quotes" and\ttab.txt'), 'new\n');
    await writeFile(join(wt, 'README.md'), 'changed\n');
    await rm(join(wt, 'gone.txt'));
    fx.git(wt, 'mv', 'old name.txt', 'new näme.txt');

    expect(byPath(await changedFiles(wt, { env: fx.env }))).toEqual(
      byPath([
        { path: 'docs/sub dir/naïve résumé 日本.md', status: 'added' },
        { path: 'with "quotes" and\ttab.txt', status: 'added' },
        { path: 'README.md', status: 'modified' },
        { path: 'gone.txt', status: 'deleted' },
        { path: 'new näme.txt', status: 'renamed', from: 'old name.txt' },
      ]),
    );
  });

  it('reports a staged rename that was then edited, and a staged file then deleted as nothing', async () => {
    fx.git(wt, 'mv', 'src/app.txt', 'src/main.txt');
    await writeFile(join(wt, 'src', 'main.txt'), 'one\ntwo\nthree\nfour\n');
    await writeFile(join(wt, 'tmp.txt'), 'scratch\n');
    fx.git(wt, 'add', 'tmp.txt');
    await rm(join(wt, 'tmp.txt'));

    expect(await changedFiles(wt, { env: fx.env })).toEqual([
      { path: 'src/main.txt', status: 'renamed', from: 'src/app.txt' },
    ]);
  });
});

describe('parsePorcelainZ', () => {
  it('parses each record shape of the -z format', () => {
    const out = [
      '?? new file.txt',
      ' M mod.txt',
      'M  staged.txt',
      ' D wt-deleted.txt',
      'D  idx-deleted.txt',
      'R  to.txt',
      'from.txt',
      'RD moved-then-deleted.txt',
      'orig.txt',
      'C  copy.txt',
      'source.txt',
      'A  added.txt',
      'AD ghost.txt',
      'UU conflict.txt',
      '',
    ].join('\0');
    expect(parsePorcelainZ(out)).toEqual([
      { path: 'new file.txt', status: 'added' },
      { path: 'mod.txt', status: 'modified' },
      { path: 'staged.txt', status: 'modified' },
      { path: 'wt-deleted.txt', status: 'deleted' },
      { path: 'idx-deleted.txt', status: 'deleted' },
      { path: 'to.txt', status: 'renamed', from: 'from.txt' },
      { path: 'orig.txt', status: 'deleted' },
      { path: 'copy.txt', status: 'added' },
      { path: 'added.txt', status: 'added' },
      { path: 'conflict.txt', status: 'modified' },
    ]);
  });

  it('returns nothing for empty output', () => {
    expect(parsePorcelainZ('')).toEqual([]);
  });
});
