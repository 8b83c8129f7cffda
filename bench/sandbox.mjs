// What the sandbox adds to one agent bash call: the same commands through runShell, unconfined and
// under bubblewrap (with the worktree's git view), interleaved in one run. Prints medians and ratios.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { requireDist } from './lib.mjs';

requireDist('sandbox', 'sandbox/sandbox-host.js');
const { probeSandbox } = await import('../dist/sandbox/probe.js');
const { createSandboxHost } = await import('../dist/sandbox/sandbox-host.js');
const { UNSANDBOXED } = await import('../dist/sandbox/sandbox.js');
const { startDomainProxy } = await import('../dist/sandbox/domain-proxy.js');
const { runShell } = await import('../dist/agent/tools/run-shell.js');
const { worktreeGitDirs, writeAgentGitDir } = await import('../dist/session/git/worktree-view.js');

const RUNS = Number(process.argv[2] ?? 40);
const probe = await probeSandbox(process.env);
if (!probe.ok) {
  console.error(`bench/sandbox: ${probe.problem}; fix: ${probe.fix}`);
  process.exit(1);
}
const root = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-bench-sandbox-')));
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
  const host = createSandboxHost({ mode: 'os', network: 'none', read_only: [] }, probe.facts);
  const sandboxed = host.forWorktree({ worktree, git: dirs, agentGitDir }).commands;
  // sandbox.allow_domains: the same sandbox with the proxy's bridge started before each command.
  const proxy = await startDomainProxy({ allow: ['registry.npmjs.org'] });
  const proxied = createSandboxHost(
    { mode: 'os', network: 'none', read_only: [] },
    probe.facts,
    proxy,
  ).forWorktree({
    worktree,
    git: dirs,
    agentGitDir,
  }).commands;
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
  console.log(`bench/sandbox: ${RUNS} calls each, interleaved; bwrap ${probe.facts.bwrap}`);
  for (const command of ['true', 'git status --short', 'node -e 0']) {
    const plain = [];
    const boxed = [];
    const viaProxy = [];
    await time(command, sandboxed); // warm the page cache for every side
    await time(command, proxied);
    for (let i = 0; i < RUNS; i++) {
      plain.push(await time(command, UNSANDBOXED));
      boxed.push(await time(command, sandboxed));
      viaProxy.push(await time(command, proxied));
    }
    const p = median(plain);
    const b = median(boxed);
    const x = median(viaProxy);
    console.log(
      `  ${command.padEnd(20)} unsandboxed ${p.toFixed(1).padStart(6)} ms   sandboxed ${b.toFixed(1).padStart(6)} ms (+${(b - p).toFixed(1)}, ${(b / p).toFixed(2)}x)   with allow_domains ${x.toFixed(1).padStart(6)} ms (+${(x - p).toFixed(1)}, ${(x / p).toFixed(2)}x)`,
    );
  }
  await proxy.close();
} finally {
  rmSync(root, { recursive: true, force: true });
}
