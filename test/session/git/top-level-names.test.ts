import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { topLevelNames } from '../../../src/session/git/top-level-names.js';
import { GREETING_TYPO, useSessionRepo } from './git-fixture.js';

const repo = useSessionRepo(GREETING_TYPO);

describe('topLevelNames', () => {
  it("names the top of a revision's tree, not what a worktree holds since", async () => {
    const { checkout, git } = repo.fx;
    const head = git(checkout, 'rev-parse', 'HEAD');
    writeFileSync(join(checkout, 'Cargo.toml'), '[package]\n');
    const names = await topLevelNames(checkout, head, { env: repo.fx.env });
    expect(names).toEqual(expect.arrayContaining(['README.md', 'src']));
    expect(names).not.toContain('Cargo.toml');
  });

  it('refuses a revision that would read as an option', async () => {
    await expect(topLevelNames(repo.fx.checkout, '--output=x')).rejects.toThrow(/revision/);
  });
});
