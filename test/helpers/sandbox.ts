import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorktreeGitDirs } from '../../src/sandbox/git-view.js';
import { probeSandbox } from '../../src/sandbox/probe.js';
import type { HostFacts } from '../../src/sandbox/sandbox.js';
import {
  createSandboxHost,
  type SandboxHost,
  type SandboxHostOptions,
  type SandboxSettings,
} from '../../src/sandbox/sandbox-host.js';
import { worktreeGitDirs, writeAgentGitDir } from '../../src/session/git/worktree-view.js';

let facts: Promise<HostFacts> | undefined;

/**
 * The host's bubblewrap, probed once per test file. Tests run what the agent runs inside the real
 * sandbox, as a run does; a machine without bwrap fails here with the install command, never skips.
 */
export function sandboxFacts(): Promise<HostFacts> {
  facts ??= probeSandbox(process.env).then((probe) => {
    if (!probe.ok) throw new Error(`tests need a working bubblewrap: ${probe.problem}; fix: ${probe.fix}`);
    return probe.facts;
  });
  return facts;
}

/** The sandbox of a run with default settings (`mode: os`, no network). */
export async function testSandboxHost(
  settings: Partial<SandboxSettings> = {},
  options: SandboxHostOptions = {},
): Promise<SandboxHost> {
  return createSandboxHost(
    { mode: 'os', network: 'none', read_only: [], ...settings },
    await sandboxFacts(),
    options,
  );
}

/** Where `scratchWorktree` made its checkout (`root`, to remove), issue 1's worktree and its git dirs. */
export interface ScratchWorktree {
  root: string;
  worktree: string;
  dirs: WorktreeGitDirs;
  agentGitDir: string;
}

/**
 * A scratch checkout (one commit) with the worktree of issue 1 and its agent git dir made, as a
 * session has them before the agent starts: for tests that run commands in a session's sandboxes.
 */
export async function scratchWorktree(prefix: string): Promise<ScratchWorktree> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const checkout = join(root, 'checkout');
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
  git(root, 'init', '-q', '-b', 'main', checkout);
  writeFileSync(join(checkout, 'README'), 'x\n');
  git(checkout, 'add', '.');
  git(checkout, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'init');
  const worktree = join(root, 'worktrees', 'issue-1');
  git(checkout, 'worktree', 'add', '-q', '-b', 'issueloop/issue-1', worktree);
  const agentGitDir = join(root, 'worktrees', '.issue-1.git');
  const dirs = await worktreeGitDirs(worktree);
  await writeAgentGitDir(dirs, 'issueloop/issue-1', agentGitDir);
  return { root, worktree, dirs, agentGitDir };
}
