import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { worktreeGitDirs, writeAgentGitDir } from '../../src/session/git/worktree-view.js';
import { testSandboxHost } from './sandbox.js';

export const SECRET = 'ghs_sandboxProbeSecret0123456789abcdef';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

/**
 * A checkout as actions/checkout leaves it (the token in its git config, a state file), with the
 * worktrees of issues 1 and 2 and issue 1's sandboxes. A test that changes the worktree or its git
 * view makes its own; the others share the file's.
 */
export async function checkoutWithWorktrees() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-sandbox-')));
  const checkout = join(root, 'checkout');
  git(root, 'init', '-q', '-b', 'main', checkout);
  git(checkout, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '--allow-empty', '-m', 'init');
  git(
    checkout,
    'config',
    'http.https://github.com/.extraheader',
    `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${SECRET}`).toString('base64')}`,
  );
  writeFileSync(join(checkout, 'state-file.json'), SECRET);
  const worktree = join(checkout, '.issueloop', 'worktrees', 'issue-1');
  git(checkout, 'worktree', 'add', '-q', '-b', 'issueloop/issue-1', worktree);
  git(checkout, 'worktree', 'add', '-q', '-b', 'other', join(checkout, '.issueloop', 'worktrees', 'issue-2'));
  const dirs = await worktreeGitDirs(worktree);
  const agentGitDir = join(checkout, '.issueloop', 'worktrees', '.issue-1.git');
  await writeAgentGitDir(dirs, 'issueloop/issue-1', agentGitDir);
  const sandboxes = await (await testSandboxHost()).forWorktree({ worktree, git: dirs, agentGitDir });
  const close = async () => {
    await sandboxes.close();
    rmSync(root, { recursive: true, force: true });
  };
  return { root, checkout, worktree, agentGitDir, sandboxes, close };
}
