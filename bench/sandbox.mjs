// What the sandbox adds to one agent bash call, interleaved in one run, three ways: unconfined;
// bubblewrap with a network namespace of its own per call and no way out (the sandbox before issue
// 29); and the session's network namespace joined with nsenter, its egress proxy reachable (today's).
// Prints medians and ratios.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { requireDist } from './lib.mjs';

requireDist('sandbox', 'sandbox/sandbox-host.js');
// As issueloop's entrypoints do before anything starts a command: what this process inherited (a job
// runner's pipe) is closed, so no call takes the prelude that would close it inside each sandbox
// (descriptors.ts). Without this the bench measured that prelude's bash start on every call.
const { closeInheritedDescriptors } = await import('../dist/sandbox/descriptors.js');
const inherited = closeInheritedDescriptors();
const { probeSandbox } = await import('../dist/sandbox/probe.js');
const { createSandboxHost } = await import('../dist/sandbox/sandbox-host.js');
const { createBwrapSandbox, UNSANDBOXED } = await import('../dist/sandbox/sandbox.js');
const { gitViewMounts } = await import('../dist/sandbox/git-view.js');
const { runShell } = await import('../dist/agent/tools/run-shell.js');
const { worktreeGitDirs, writeAgentGitDir } = await import('../dist/session/git/worktree-view.js');

const RUNS = Number(process.argv[2] ?? 40);
const probe = await probeSandbox(process.env);
if (!probe.ok) {
  console.error(`bench/sandbox: ${probe.problem}; fix: ${probe.fix}`);
  process.exit(1);
}
const root = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-bench-sandbox-')));
let session;
let allowing;
try {
  const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8' });
  const checkout = join(root, 'checkout');
  git(root, 'init', '-q', '-b', 'main', checkout);
  git(checkout, '-c', 'user.name=b', '-c', 'user.email=b@e', 'commit', '-q', '--allow-empty', '-m', 'init');
  const worktree = join(root, 'worktrees', 'issue-1');
  git(checkout, 'worktree', 'add', '-q', '-b', 'issueloop/issue-1', worktree);
  const dirs = await worktreeGitDirs(worktree);
  const agentGitDir = join(root, 'worktrees', '.issue-1.git');
  await writeAgentGitDir(dirs, 'issueloop/issue-1', agentGitDir);
  // Before: the same mounts, a fresh network namespace per call, nothing reachable outside it.
  const perCall = createBwrapSandbox(
    { writable: [worktree], readOnly: [], extraMounts: gitViewMounts(dirs, agentGitDir) },
    probe.facts,
  );
  // Now: the session's holders and egress proxies, started once per session. With the default
  // settings, and with allow_domains set (Node then routes its own fetch through the proxy too).
  const settings = { mode: 'os', network: 'none', read_only: [] };
  const holderStarted = performance.now();
  session = await createSandboxHost(settings, probe.facts).forWorktree({ worktree, git: dirs, agentGitDir });
  const startMs = performance.now() - holderStarted;
  allowing = await createSandboxHost(
    { ...settings, allow_domains: ['registry.npmjs.org'] },
    probe.facts,
  ).forWorktree({ worktree, git: dirs, agentGitDir });
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' };
  const signal = new AbortController().signal;
  const time = async (command, sandbox) => {
    const started = performance.now();
    const result = await runShell(command, {
      cwd: worktree,
      env,
      timeoutMs: 30_000,
      maxOutputChars: 10_000,
      signal,
      sandbox,
    });
    if (result.exitCode !== 0) throw new Error(`${command} failed: ${result.output}`);
    return performance.now() - started;
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const cell = (ms, bare) =>
    `${ms.toFixed(1).padStart(6)} ms (+${(ms - bare).toFixed(1)}, ${(ms / bare).toFixed(2)}x)`;
  console.log(
    `bench/sandbox: ${RUNS} calls each, interleaved; bwrap ${probe.facts.bwrap}, nsenter ${probe.facts.nsenter}; inherited descriptors closed at start: ${inherited.length === 0 ? 'none' : inherited.join(', ')}`,
  );
  console.log(
    `  a session's network holders and egress proxies (commands, setup) started in ${startMs.toFixed(0)} ms`,
  );
  for (const command of ['true', 'git status --short', 'node -e 0']) {
    const bare = [];
    const before = [];
    const now = [];
    const allowed = [];
    await time(command, perCall); // warm the page cache for every side
    await time(command, session.commands);
    await time(command, allowing.commands);
    for (let i = 0; i < RUNS; i++) {
      bare.push(await time(command, UNSANDBOXED));
      before.push(await time(command, perCall));
      now.push(await time(command, session.commands));
      allowed.push(await time(command, allowing.commands));
    }
    const b = median(bare);
    console.log(
      `  ${command.padEnd(18)} bare ${b.toFixed(1).padStart(5)} ms | per-call netns ${cell(median(before), b)} | session netns + proxy ${cell(median(now), b)} | + allow_domains ${cell(median(allowed), b)}`,
    );
  }
} finally {
  await session?.close();
  await allowing?.close();
  rmSync(root, { recursive: true, force: true });
}
