import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitViewMounts, parseConfigList, sanitizedGitConfig } from '../../src/sandbox/git-view.js';

const HOSTILE_CONFIG: Array<[string, string]> = [
  ['core.repositoryformatversion', '0'],
  ['core.bare', 'false'],
  ['core.hooksPath', '/tmp/evil-hooks'],
  ['core.fsmonitor', 'touch /tmp/pwned'],
  ['core.sshCommand', 'sh -c evil'],
  ['http.https://github.com/.extraheader', 'AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3NlY3JldA=='],
  ['credential.helper', 'store'],
  ['url.https://evil.example/.insteadOf', 'https://github.com/'],
  ['remote.origin.url', 'https://x-access-token:ghs_secret@github.com/acme/widgets.git'],
  ['remote.origin.pushurl', 'https://evil.example/acme/widgets.git'],
  ['remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*'],
  ['filter.evil.clean', 'sh -c evil'],
  ['diff.evil.textconv', 'sh -c evil'],
  ['include.path', '/tmp/evil.gitconfig'],
  ['alias.st', '!sh -c evil'],
  ['extensions.objectformat', 'sha1'],
  ['branch.main.remote', 'origin'],
  ['user.name', 'Quote "and" back\\slash'],
];

describe('sanitizedGitConfig', () => {
  it('keeps what a worktree needs and drops every key that runs a program, sends a credential or redirects', () => {
    const text = sanitizedGitConfig(HOSTILE_CONFIG);
    for (const bad of [
      'hookspath',
      'fsmonitor',
      'sshcommand',
      'extraheader',
      'helper',
      'insteadof',
      'pushurl',
      'clean',
      'textconv',
      'include',
      'alias',
      'ghs_secret',
      'evil',
    ]) {
      expect(text.toLowerCase()).not.toContain(bad);
    }
    expect(text).toContain('[remote "origin"]');
    expect(text).toContain('url = "https://github.com/acme/widgets.git"');
    expect(text).toContain('[extensions]');
    expect(text).toMatch(/^\[core\]\n\tbare = false\n/);
  });

  it('writes a file git reads back to the same kept values (quotes and backslashes survive)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'issueloop-gitview-'));
    try {
      const file = join(dir, 'config');
      writeFileSync(file, sanitizedGitConfig(HOSTILE_CONFIG));
      const read = parseConfigList(
        execFileSync('git', ['config', '--file', file, '--list', '-z'], { encoding: 'utf8' }),
      );
      expect(read).toEqual([
        ['core.bare', 'false'],
        ['core.repositoryformatversion', '0'],
        ['remote.origin.url', 'https://github.com/acme/widgets.git'],
        ['remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*'],
        ['extensions.objectformat', 'sha1'],
        ['branch.main.remote', 'origin'],
        ['user.name', 'Quote "and" back\\slash'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('gitViewMounts', () => {
  it("shows the agent's private git dir where the worktree's .git file leads, and only the repository's objects, read-only", () => {
    const common = '/work/repo/.git';
    const admin = join(common, 'worktrees', 'issue-7');
    expect(gitViewMounts({ common, admin }, '/state/worktrees/.issue-7.git')).toEqual([
      { kind: 'ro-bind', source: join(common, 'objects'), dest: join(common, 'objects') },
      { kind: 'bind', source: '/state/worktrees/.issue-7.git', dest: admin },
    ]);
  });
});
