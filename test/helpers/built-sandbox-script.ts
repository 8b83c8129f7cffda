import { join } from 'node:path';

/** A module of the built dist/, as an import specifier for a script run in a child process. */
export function builtModule(path: string): string {
  return JSON.stringify(join(process.cwd(), 'dist', path));
}

/**
 * Lines of an ES module script (run by a child `node`, from the built dist/) that make a scratch
 * checkout with issue 1's worktree and its agent git dir, probe bubblewrap and open the session's
 * sandboxes: `root`, `worktree` and `sandboxes` are in scope after them. The script imports
 * `join` from node:path itself.
 */
export const SESSION_SANDBOXES = `
const { execFileSync } = await import('node:child_process');
const { mkdtempSync, realpathSync, writeFileSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { probeSandbox } = await import(${builtModule('sandbox/probe.js')});
const { createSandboxHost } = await import(${builtModule('sandbox/sandbox-host.js')});
const { worktreeGitDirs, writeAgentGitDir } = await import(${builtModule('session/git/worktree-view.js')});
const root = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-fds-')));
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8' });
const checkout = join(root, 'checkout');
git(root, 'init', '-q', '-b', 'main', checkout);
writeFileSync(join(checkout, 'README'), 'x\\n');
git(checkout, 'add', '.');
git(checkout, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'init');
const worktree = join(root, 'worktrees', 'issue-1');
git(checkout, 'worktree', 'add', '-q', '-b', 'issueloop/issue-1', worktree);
const agentGitDir = join(root, 'worktrees', '.issue-1.git');
const dirs = await worktreeGitDirs(worktree);
await writeAgentGitDir(dirs, 'issueloop/issue-1', agentGitDir);
const probe = await probeSandbox(process.env);
if (!probe.ok) throw new Error(probe.problem);
const host = createSandboxHost({ mode: 'os', network: 'none', read_only: [] }, probe.facts);
const sandboxes = await host.forWorktree({ worktree, git: dirs, agentGitDir });
`;
