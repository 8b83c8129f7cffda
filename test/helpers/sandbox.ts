import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runShell, type ShellOptions, type ShellResult } from '../../src/agent/tools/run-shell.js';
import type { WorktreeGitDirs } from '../../src/sandbox/git-view.js';
import { probeSandbox } from '../../src/sandbox/probe.js';
import type { CommandSandbox, HostFacts } from '../../src/sandbox/sandbox.js';
import {
  createSandboxHost,
  type SandboxHost,
  type SandboxHostOptions,
  type SandboxSettings,
  type WorktreeSandboxes,
  type WorktreeView,
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

/**
 * A scratchWorktree with `files` written in its worktree, and the session's sandboxes over it from a
 * default sandbox host (testSandboxHost), the refusals logged to `log` when given.
 */
export async function scratchSandboxes(
  prefix: string,
  options: { files?: Record<string, string>; log?: WorktreeView['log'] } = {},
): Promise<{ root: string; worktree: string; sandboxes: WorktreeSandboxes }> {
  const { root, worktree, dirs, agentGitDir } = await scratchWorktree(prefix);
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(worktree, name), text);
  const host = await testSandboxHost();
  const log = options.log ? { log: options.log } : {};
  const sandboxes = await host.forWorktree({ worktree, git: dirs, agentGitDir, ...log });
  return { root, worktree, sandboxes };
}

/** The harness's own PATH (what the agent's tools are found on), or the system's when it has none. */
export const HOST_PATH = process.env.PATH ?? '/usr/bin:/bin';

/**
 * `command` as the agent's shell tool runs it in `sandbox`, from `cwd`, with `env` (the system's PATH
 * only, by default), 20 s and 10,000 characters of output unless `options` says otherwise; never
 * aborted.
 */
export function shellIn(
  sandbox: CommandSandbox,
  cwd: string,
  command: string,
  env: ShellOptions['env'] = { PATH: '/usr/bin:/bin' },
  options: Partial<Pick<ShellOptions, 'timeoutMs' | 'maxOutputChars'>> = {},
): Promise<ShellResult> {
  return runShell(command, {
    cwd,
    env,
    timeoutMs: 20_000,
    maxOutputChars: 10_000,
    ...options,
    signal: new AbortController().signal,
    sandbox,
  });
}
