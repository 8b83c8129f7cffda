import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROTECTED_PATHS } from '../../src/config/protected-paths.js';
import { describeProtected, protectedChanges, quotedName } from '../../src/session/protected-paths.js';
import { createGitFixture, type GitFixture } from './git/git-fixture.js';

/**
 * protectedChanges on a worktree changed by hand (no session around it), and the text a refusal
 * shows: the symlink rules and the quoting are where a silent bug delivers a workflow change.
 */
let fx: GitFixture;
let start: string;
/** A fresh repository for each test of the describe block that calls it (the quoting needs none). */
function useRepository() {
  beforeEach(async () => {
    fx = await createGitFixture();
    start = fx.commitFiles(fx.seed, { 'greet.js': 'a\n', 'docs/readme.md': 'x\n' }, 'first');
  });
  afterEach(() => fx.cleanup());
}

const changes = (configured: readonly string[] = DEFAULT_PROTECTED_PATHS) =>
  protectedChanges(fx.seed, { start }, configured, { env: fx.env });
const link = (target: string, path: string) => {
  mkdirSync(join(fx.seed, path, '..'), { recursive: true });
  symlinkSync(target, join(fx.seed, path));
};

describe('protectedChanges: symlinks', () => {
  useRepository();

  it('regression: a symlink into .github/workflows counts, wherever it lies (a relative target resolved from its directory)', async () => {
    link('../.github/workflows/ci.yml', 'docs/ci-link');
    link('.github', 'gh');
    link('.github/', 'gh-slash');
    link('./.github/workflows//', 'wf');
    expect(await changes()).toEqual(['docs/ci-link', 'gh', 'gh-slash', 'wf']);
  });

  it('a symlink to an ordinary file, out of the repository or to an absolute path does not count', async () => {
    link('greet.js', 'greet-link');
    link('../../etc/passwd', 'docs/out');
    link('..', 'up');
    link('/repo/.github/workflows/ci.yml', 'absolute');
    link('../.github/workflows', '.hidden-up');
    writeFileSync(join(fx.seed, '.github-not'), 'x');
    const found = await changes();
    expect(found).toEqual([]);
    // The same worktree with a protected file added: the listing is not simply empty.
    mkdirSync(join(fx.seed, '.github', 'workflows'), { recursive: true });
    writeFileSync(join(fx.seed, '.github', 'workflows', 'x.yml'), 'on: push\n');
    expect(await changes()).toEqual(['.github/workflows/x.yml']);
  });

  it('a directory a glob runs through, replaced by a file, counts; a deletion and a mode change count', async () => {
    start = fx.commitFiles(
      fx.seed,
      { '.github/workflows/ci.yml': 'on: push\n', CODEOWNERS: '* @a\n' },
      'more',
    );
    fx.git(fx.seed, 'rm', '-q', '-r', '.github');
    writeFileSync(join(fx.seed, '.github'), 'not a directory\n');
    chmodSync(join(fx.seed, 'CODEOWNERS'), 0o755);
    expect(await changes()).toEqual(['.github', '.github/workflows/ci.yml', 'CODEOWNERS']);
  });
});

describe('protectedChanges: the globs', () => {
  useRepository();

  it('no glob in force ([]) is no protected change, even for a workflow', async () => {
    mkdirSync(join(fx.seed, '.github', 'workflows'), { recursive: true });
    writeFileSync(join(fx.seed, '.github', 'workflows', 'x.yml'), 'on: push\n');
    expect(await changes([])).toEqual([]);
    expect(await changes(['...'])).toEqual(['.github/workflows/x.yml']);
  });

  it('a merged base equal to the start filters nothing', async () => {
    writeFileSync(join(fx.seed, '.gitmodules'), '[submodule "x"]\n');
    expect(
      await protectedChanges(fx.seed, { start, merged: start }, DEFAULT_PROTECTED_PATHS, { env: fx.env }),
    ).toEqual(['.gitmodules']);
  });
});

describe('the names a refusal shows', () => {
  it('regression: quotes and backslashes are escaped, so a name cannot close its quotes', () => {
    expect(quotedName('a"b\\c')).toBe('"a\\u0022b\\u005cc"');
    expect(quotedName('plain name-1.yml')).toBe('"plain name-1.yml"');
  });

  it('escapes line breaks, controls, bidi marks and characters outside the BMP by code point', () => {
    expect(quotedName('x\ny\tz\u007f\u202e😀~')).toBe('"x\\u000ay\\u0009z\\u007f\\u202e\\u1f600~"');
  });

  it('cuts a name at 200 characters and says so', () => {
    const name = 'n'.repeat(201);
    expect(quotedName(name)).toBe(`"${'n'.repeat(200)}…"`);
    expect(quotedName('n'.repeat(200))).toBe(`"${'n'.repeat(200)}"`);
  });

  it('lists five names in full and says how many more there are only past five', () => {
    const five = describeProtected(['a', 'b', 'c', 'd', 'e']);
    expect(five).toBe(
      'protected paths changed: "a", "b", "c", "d", "e"; nothing was committed or pushed: a person makes this change (protected_paths)',
    );
    expect(describeProtected(['a', 'b', 'c', 'd', 'e', 'f'])).toContain('"e", and 1 more;');
  });
});
