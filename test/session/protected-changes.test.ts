import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROTECTED_PATHS } from '../../src/config/protected-paths.js';
import { describeProtected, protectedChanges } from '../../src/session/protected-paths.js';
import { createGitFixture, type GitFixture } from './git/git-fixture.js';

/**
 * A follow-up's merge of its base, by hand: the branch (B) and the base (S) both moved, the base
 * changed a workflow. Only what differs from both parents is the session's.
 */
let fx: GitFixture;
let start: string;
let merged: string;
beforeEach(async () => {
  fx = await createGitFixture();
  fx.commitFiles(fx.seed, { 'greet.js': 'a\n', '.github/workflows/ci.yml': 'on: push\n' }, 'first');
  fx.git(fx.seed, 'checkout', '--quiet', '-b', 'feature');
  start = fx.commitFiles(fx.seed, { 'greet.js': 'b\n' }, 'the branch');
  fx.git(fx.seed, 'checkout', '--quiet', '-b', 'base', 'HEAD~1');
  merged = fx.commitFiles(fx.seed, { '.github/workflows/ci.yml': 'on: [push]\n' }, 'the base');
  fx.git(fx.seed, 'checkout', '--quiet', 'feature');
  fx.git(fx.seed, 'merge', '--quiet', '--no-commit', '--no-ff', merged);
});
afterEach(() => fx.cleanup());

const changes = () => protectedChanges(fx.seed, { start, merged }, DEFAULT_PROTECTED_PATHS, { env: fx.env });

describe('protected changes in a merge', () => {
  it("leaves out the base's own workflow change", async () => {
    expect(await changes()).toEqual([]);
    // Against the branch's start alone, the base's change would count.
    expect(await protectedChanges(fx.seed, { start }, DEFAULT_PROTECTED_PATHS, { env: fx.env })).toEqual([
      '.github/workflows/ci.yml',
    ]);
  });

  it('names a workflow the session adds, or a change it makes to the one the base brought', async () => {
    writeFileSync(join(fx.seed, '.github/workflows/evil.yml'), 'on: push\n');
    expect(await changes()).toEqual(['.github/workflows/evil.yml']);
    writeFileSync(join(fx.seed, '.github/workflows/ci.yml'), 'on: [push, pull_request]\n');
    expect(await changes()).toEqual(['.github/workflows/ci.yml', '.github/workflows/evil.yml']);
  });

  it('describes at most five names, each quoted and escaped', () => {
    const names = ['a\u202eb', 'c`d', ...'efghij'];
    expect(describeProtected(names)).toBe(
      'protected paths changed: "a\\u202eb", "c`d", "e", "f", "g", and 3 more; nothing was committed or pushed: a person makes this change (protected_paths)',
    );
  });
});
