import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addWorktree, commitAll } from '../../../src/session/git/index.js';
import { startMerge, withConflictMarkers } from '../../../src/session/git/merge.js';
import { createGitFixture, type GitFixture } from './git-fixture.js';

const author = { name: 'issueloop[bot]', email: 'issueloop-bot@users.noreply.example.test' };

let fx: GitFixture;
let wt: string;
/** The fixture's environment without any git identity: what a scrubbed runner may have. */
let bare: Record<string, string>;

beforeEach(async () => {
  fx = await createGitFixture();
  fx.commitFiles(fx.seed, { 'greet.js': "'helo'\n", 'a.txt': 'a\n' }, 'start');
  fx.git(fx.seed, 'push', '--quiet', 'origin', 'HEAD:main');
  fx.git(fx.checkout, 'fetch', '--quiet', 'origin');
  wt = join(fx.root, 'wt');
  await addWorktree(
    { checkout: fx.checkout, path: wt, branch: 'topic', startPoint: 'origin/main' },
    { env: fx.env },
  );
  fx.commitFiles(wt, { 'greet.js': "'hello'\n" }, 'the fix');
  bare = Object.fromEntries(
    Object.entries(fx.env).filter(
      ([name]) => !name.startsWith('GIT_AUTHOR') && !name.startsWith('GIT_COMMITTER'),
    ),
  );
});

afterEach(async () => {
  await fx.cleanup();
});

/** Moves origin's main by a commit of `files`, fetched into the checkout; returns its sha. */
function moveMain(files: Record<string, string>): string {
  const sha = fx.commitFiles(fx.seed, files, 'main moves');
  fx.git(fx.seed, 'push', '--quiet', 'origin', 'HEAD:main');
  fx.git(fx.checkout, 'fetch', '--quiet', 'origin');
  return sha;
}

describe('startMerge', () => {
  it('a clean merge is staged, not committed, with MERGE_HEAD set, even with no git identity in the environment', async () => {
    const head = fx.git(wt, 'rev-parse', 'HEAD');
    const main = moveMain({ 'a.txt': 'a, again\n' });
    expect(await startMerge(wt, { sha: main, author }, { env: bare })).toEqual({ kind: 'clean' });
    expect(fx.git(wt, 'rev-parse', 'HEAD')).toBe(head);
    expect(fx.git(wt, 'rev-parse', 'MERGE_HEAD')).toBe(main);
    expect(await readFile(join(wt, 'a.txt'), 'utf8')).toBe('a, again\n');
  });

  it('a conflict names the conflicted paths, whose markers withConflictMarkers finds until they are resolved', async () => {
    const main = moveMain({ 'greet.js': "'helo!'\n" });
    expect(await startMerge(wt, { sha: main, author }, { env: bare })).toEqual({
      kind: 'conflicted',
      paths: ['greet.js'],
    });
    expect(await withConflictMarkers(wt, ['greet.js', 'a.txt'])).toEqual(['greet.js']);
    await writeFile(join(wt, 'greet.js'), "'hello!'\n");
    expect(await withConflictMarkers(wt, ['greet.js'])).toEqual([]);
  });

  it('a base the branch already holds is up to date: nothing merged', async () => {
    const main = fx.git(fx.checkout, 'rev-parse', 'origin/main');
    expect(await startMerge(wt, { sha: main, author }, { env: fx.env })).toEqual({ kind: 'up_to_date' });
    expect(() => fx.git(wt, 'rev-parse', '-q', '--verify', 'MERGE_HEAD')).toThrow();
  });

  it('refuses anything but a full sha (a name git would resolve, an option)', async () => {
    await expect(startMerge(wt, { sha: '--abort', author }, { env: fx.env })).rejects.toThrow(
      /invalid merge/,
    );
    await expect(startMerge(wt, { sha: 'main', author }, { env: fx.env })).rejects.toThrow(/invalid merge/);
  });
});

describe('withConflictMarkers', () => {
  it('regression: a Markdown underline (=======) is not a marker; a marker is a whole <<<<<<< or >>>>>>> line; a deleted file is skipped', async () => {
    await writeFile(join(wt, 'doc.md'), 'a heading\n=======\nnot a marker: <<<<<<<< eight\n');
    await writeFile(join(wt, 'merge.txt'), 'x\n<<<<<<< HEAD\ny\n');
    expect(await withConflictMarkers(wt, ['doc.md', 'merge.txt', 'gone.txt'])).toEqual(['merge.txt']);
  });
});

describe('commitAll during a merge', () => {
  it("regression: a merge whose resolution keeps the branch's tree is still committed, with both parents", async () => {
    const head = fx.git(wt, 'rev-parse', 'HEAD');
    const main = moveMain({ 'greet.js': "'helo!'\n" });
    await startMerge(wt, { sha: main, author }, { env: bare });
    await writeFile(join(wt, 'greet.js'), "'hello'\n");
    const sha = await commitAll(
      wt,
      { message: 'Merge main into topic\n', author, mergeParent: main },
      { env: bare },
    );
    expect(sha).toBe(fx.git(wt, 'rev-parse', 'HEAD'));
    expect(fx.git(wt, 'rev-list', '--parents', '-n', '1', 'HEAD').split(' ').slice(1)).toEqual([head, main]);
    expect(fx.git(wt, 'log', '-1', '--format=%an|%cn|%s', 'HEAD')).toBe(
      `${author.name}|${author.name}|Merge main into topic`,
    );
    expect(() => fx.git(wt, 'rev-parse', '-q', '--verify', 'MERGE_HEAD')).toThrow();
  });

  it('regression: a MERGE_HEAD someone wrote does not become a parent of a plain commit (its history would be pushed unscanned)', async () => {
    const head = fx.git(wt, 'rev-parse', 'HEAD');
    const planted = moveMain({ 'secret.txt': 'not for the PR\n' });
    fx.git(wt, 'update-ref', 'MERGE_HEAD', planted);
    await writeFile(join(wt, 'fix.txt'), 'fixed\n');
    await commitAll(wt, { message: 'Fix\n', author }, { env: fx.env });
    expect(fx.git(wt, 'rev-list', '--parents', '-n', '1', 'HEAD').split(' ').slice(1)).toEqual([head]);
  });

  it('without a merge under way, nothing staged is still nothing to commit', async () => {
    expect(await commitAll(wt, { message: 'nothing\n', author }, { env: fx.env })).toBeUndefined();
  });
});

describe('what the harness will not merge, and what it will not read', () => {
  it('regression: a branch that changes a .gitattributes (at the root or deeper) is refused, not merged', async () => {
    const main = moveMain({ 'a.txt': 'a, again\n' });
    fx.commitFiles(wt, { 'lib/.gitattributes': '* merge=union\n' }, 'attributes');
    const refused = await startMerge(wt, { sha: main, author }, { env: fx.env });
    expect(refused).toEqual({
      kind: 'refused',
      reason:
        'the branch changes lib/.gitattributes, which decides how git merges: the harness does not merge it',
    });
    expect(() => fx.git(wt, 'rev-parse', '-q', '--verify', 'MERGE_HEAD')).toThrow();
    fx.commitFiles(wt, { '.gitattributes': '* conflict-marker-size=9\n' }, 'root attributes');
    expect((await startMerge(wt, { sha: main, author }, { env: fx.env })).kind).toBe('refused');
  });

  it('regression: a FIFO, a symlink or a directory in place of a conflicted file is unresolved, never read or followed', async () => {
    await rm(join(wt, 'greet.js'));
    execFileSync('mkfifo', [join(wt, 'greet.js')]);
    await rm(join(wt, 'a.txt'));
    await symlink('/dev/zero', join(wt, 'a.txt'));
    await mkdir(join(wt, 'dir.txt'));
    await writeFile(join(wt, 'wide-marker.txt'), `${'<'.repeat(9)} HEAD\n`);
    expect(await withConflictMarkers(wt, ['greet.js', 'a.txt', 'dir.txt', 'wide-marker.txt'])).toEqual([
      'greet.js',
      'a.txt',
      'dir.txt',
      'wide-marker.txt',
    ]);
  });
});
