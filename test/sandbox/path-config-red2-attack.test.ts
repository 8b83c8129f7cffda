import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolDirectories } from '../../src/sandbox/host-paths.js';
import { createSandboxHost, type WorktreeSandboxes } from '../../src/sandbox/sandbox-host.js';
import { sandboxFacts, scratchWorktree, shellIn } from '../helpers/sandbox.js';

/**
 * Red team, round 2, against the PATH toolchain rule (host-paths.ts). A directory is refused when it
 * is or lies in `~/.config/gh`, `~/.ssh`…, but not when it HOLDS one: `~/.local/bin` on PATH with a
 * launcher linked to a script kept at the top of `~/.config` (dotfile managers do this) shows its
 * installation, `dirname` of the script: all of `~/.config`, with the GitHub CLI's token in
 * `gh/hosts.yml` and git's XDG credential store in `git/credentials`.
 */
const TOKEN = 'gho_red2ConfigToken0123456789abcdefghij';
let root: string;
let home: string;
let worktree: string;
let sandboxes: WorktreeSandboxes;

beforeAll(async () => {
  const scratch = await scratchWorktree('issueloop-red2path-');
  ({ root, worktree } = scratch);
  const { dirs, agentGitDir } = scratch;
  home = join(root, 'home');
  mkdirSync(join(home, '.config', 'gh'), { recursive: true });
  mkdirSync(join(home, '.config', 'git'), { recursive: true });
  mkdirSync(join(home, '.local', 'bin'), { recursive: true });
  writeFileSync(join(home, '.config', 'gh', 'hosts.yml'), `github.com:\n    oauth_token: ${TOKEN}\n`);
  writeFileSync(join(home, '.config', 'git', 'credentials'), `https://x:${TOKEN}@github.com\n`);
  writeFileSync(join(home, '.config', 'prompt.sh'), '#!/bin/sh\necho prompt\n');
  chmodSync(join(home, '.config', 'prompt.sh'), 0o755);
  symlinkSync('../../.config/prompt.sh', join(home, '.local', 'bin', 'prompt'));

  const facts = await sandboxFacts();
  const host = createSandboxHost(
    { mode: 'os', network: 'none', read_only: [] },
    { ...facts, home, path: `${join(home, '.local', 'bin')}:${facts.path ?? '/usr/bin:/bin'}` },
  );
  sandboxes = await host.forWorktree({ worktree, git: dirs, agentGitDir });
}, 60_000);

afterAll(async () => {
  await sandboxes?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('red2: a PATH launcher linked into ~/.config', () => {
  it('red2-path-holds-secret-dir: toolDirectories refuses a directory that holds ~/.config/gh', () => {
    const shown = toolDirectories(join(home, '.local', 'bin'), [], { home });
    expect(shown).not.toContain(join(home, '.config'));
  });

  it('red2-path-holds-secret-dir: the GitHub CLI token and git credential store are not readable in the sandbox', async () => {
    const result = await shellIn(
      sandboxes.commands,
      worktree,
      `cat ${home}/.config/gh/hosts.yml ${home}/.config/git/credentials 2>&1; echo end`,
    );
    expect(result.output).toContain('end');
    expect(result.output).not.toContain(TOKEN);
  });
});
