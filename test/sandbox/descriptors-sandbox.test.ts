import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What a sandboxed command holds when the harness inherited nothing (the entrypoints close what it
 * did, descriptors.ts): stdin, stdout, stderr, and no namespace descriptor of its session (nsenter
 * opens those by path, through the harness's own), with no prelude on the way. Built dist/, in a child
 * process with an inheritable pipe at fd 40, as issueloop's own entrypoint would start.
 */
const FD = 40;
const dist = (path: string) => JSON.stringify(join(process.cwd(), 'dist', path));

const harness = `
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const { closeInheritedDescriptors } = await import(${dist('sandbox/descriptors.js')});
const closed = closeInheritedDescriptors();
const { probeSandbox } = await import(${dist('sandbox/probe.js')});
const { createSandboxHost } = await import(${dist('sandbox/sandbox-host.js')});
const { runShell } = await import(${dist('agent/tools/run-shell.js')});
const { worktreeGitDirs, writeAgentGitDir } = await import(${dist('session/git/worktree-view.js')});
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
const roles = {
  commands: sandboxes.commands,
  setup: await sandboxes.setup(),
  claude: await sandboxes.claude({ home: join(root, 'home'), homeBinds: [], readOnly: [] }),
};
const results = {};
for (const [role, sandbox] of Object.entries(roles)) {
  const wrapped = sandbox.wrap(['true'], worktree, {});
  for (const fd of wrapped.fds ?? []) (await import('node:fs')).closeSync(fd);
  for (const fd of wrapped.held ?? []) (await import('node:fs')).closeSync(fd);
  const result = await runShell('cd /proc/self/fd && for f in *; do echo "$f $(readlink $f)"; done', {
    cwd: worktree,
    env: { PATH: process.env.PATH },
    timeoutMs: 30000,
    maxOutputChars: 10000,
    signal: new AbortController().signal,
    sandbox,
  });
  results[role] = { fds: result.output.trim().split('\\n'), prelude: wrapped.args.includes('-p') };
}
await sandboxes.close();
rmSync(root, { recursive: true, force: true });
console.log(JSON.stringify({ closed, results }));
`;

describe('descriptors a sandboxed command holds', () => {
  it('none of the harness’s and no namespace of the session’s, with no prelude once the entrypoint closed what it inherited', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', harness], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' },
      stdio: ['ignore', 'pipe', 'pipe', ...Array<'ignore'>(FD - 3).fill('ignore'), 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, err).toBe(0);
    const { closed, results } = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as {
      closed: number[];
      results: Record<string, { fds: string[]; prelude: boolean }>;
    };
    expect(closed).toContain(FD);
    for (const role of ['commands', 'setup', 'claude']) {
      const held = results[role];
      expect(held?.prelude, role).toBe(false);
      // 0–2 and the shell's own 3 (the glob's directory, then $(readlink)'s pipe): a descriptor passed
      // on would be at another number (the harness's 40, a runner's 251, the namespaces' 4 and 5).
      expect(
        held?.fds.map((line) => line.split(' ')[0]),
        role,
      ).toEqual(['0', '1', '2', '3']);
      expect(held?.fds.join('\n'), role).not.toMatch(/user:|net:/);
    }
  }, 120_000);
});
