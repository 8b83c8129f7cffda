import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxHost, type WorktreeSandboxes } from '../../src/sandbox/sandbox-host.js';
import { worktreeGitDirs, writeAgentGitDir } from '../../src/session/git/worktree-view.js';
import { sandboxFacts, shellIn } from '../helpers/sandbox.js';

/**
 * Red team (issue 29): the toolchain directories on the harness's PATH are shown read-only in every
 * sandbox, never one that is or holds the home. But a workflow that puts its checkout on PATH
 * (`echo "$GITHUB_WORKSPACE" >> "$GITHUB_PATH"`, to run the repository's scripts by name) shows the
 * checkout itself: its `.git/config`, where actions/checkout keeps the job's token as an
 * extraheader, the other worktrees and a state directory kept there. The token here is planted the
 * way actions/checkout writes it.
 */
const TOKEN = 'ghs_pathCheckoutToken0123456789abcdefgh';
let root: string;
let checkout: string;
let worktree: string;
let sandboxes: WorktreeSandboxes;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-pathco-')));
  checkout = join(root, 'checkout');
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
  git(root, 'init', '-q', '-b', 'main', checkout);
  writeFileSync(join(checkout, 'build.sh'), '#!/bin/sh\n');
  git(checkout, 'add', '.');
  git(checkout, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'init');
  const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
  git(checkout, 'config', 'http.https://github.com/.extraheader', header);
  worktree = join(root, 'worktrees', 'issue-1');
  git(checkout, 'worktree', 'add', '-q', '-b', 'issueloop/issue-1', worktree);
  const agentGitDir = join(root, 'worktrees', '.issue-1.git');
  const dirs = await worktreeGitDirs(worktree);
  await writeAgentGitDir(dirs, 'issueloop/issue-1', agentGitDir);
  const facts = await sandboxFacts();
  const host = createSandboxHost(
    { mode: 'os', network: 'none', read_only: [] },
    { ...facts, path: `${facts.path ?? ''}:${checkout}` },
  );
  sandboxes = await host.forWorktree({ worktree, git: dirs, agentGitDir });
}, 60_000);

afterAll(async () => {
  await sandboxes?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a checkout on the harness’s PATH', () => {
  it('red: its .git/config, with the job’s token, is readable in the sandbox', async () => {
    const result = await shellIn(sandboxes.commands, worktree, `cat ${checkout}/.git/config 2>&1; echo end`);
    expect(result.output).toContain('end');
    const encoded = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    expect(result.output).not.toContain(encoded);
  });
});
