import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runShell } from '../../src/agent/tools/run-shell.js';
import { claudeScope } from '../../src/engines/claude-code/claude-scope.js';
import { claudeProjectDir } from '../../src/engines/claude-code/session-history.js';
import type { WorktreeSandboxes } from '../../src/sandbox/sandbox-host.js';
import { worktreeGitDirs } from '../../src/session/git/worktree-view.js';
import { testSandboxHost } from '../helpers/sandbox.js';
import { checkoutWithWorktrees, git, SECRET } from '../helpers/sandbox-checkout.js';
import { until } from '../helpers/until.js';

/** A process's environment as /proc shows it ('' once it is gone). */
function environOf(pid: number | undefined): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return '';
  }
}

let shared: Awaited<ReturnType<typeof checkoutWithWorktrees>>;
let root: string;
let checkout: string;
let worktree: string;
let sandboxes: WorktreeSandboxes;
let agentGitDir: string;

beforeAll(async () => {
  shared = await checkoutWithWorktrees();
  ({ root, checkout, worktree, sandboxes, agentGitDir } = shared);
});
afterAll(() => shared.close());

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' };
/** One command in the worktree, in `sandbox` (by default the agent's commands' one). */
function runIn(command: string, sandbox: WorktreeSandboxes['commands'], cwd = worktree) {
  return runShell(command, {
    cwd,
    env,
    timeoutMs: 20_000,
    maxOutputChars: 50_000,
    signal: new AbortController().signal,
    sandbox,
  });
}
const inSandbox = async (command: string, which: 'commands' | 'setup' = 'commands') =>
  runIn(command, which === 'setup' ? await sandboxes.setup() : sandboxes.commands);

describe("the sandbox around the agent's commands (real bubblewrap)", () => {
  it('has its own PID namespace: no process of the harness, nor its environment, is visible', async () => {
    // A process of the harness's holding the secret in its environment, as issueloop's own does.
    const holder = spawn('sleep', ['30'], { env: { ...env, GITHUB_TOKEN: SECRET } });
    try {
      await until(() => environOf(holder.pid).includes(SECRET), 10_000);
      const result = await inSandbox(
        'ls /proc | grep -c "^[0-9]"; for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < "$f"; done; cat /proc/$PPID/cmdline',
      );
      expect(result.exitCode).toBe(0);
      const count = Number(result.output.split('\n')[0]);
      expect(count).toBeLessThan(8);
      expect(result.output).not.toContain(SECRET);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('shows the worktree writable, the system read-only, an empty home and a private /tmp; not the checkout, the state or other worktrees', async () => {
    const result = await inSandbox(
      [
        'echo ok > made-inside && cat made-inside',
        'touch /etc/issueloop-pwned 2>&1 || echo etc-readonly',
        'ls -A "$HOME" | wc -l',
        `test -e ${join(checkout, 'state-file.json')} && echo STATE-VISIBLE || echo state-hidden`,
        `test -e ${join(checkout, '.issueloop', 'worktrees', 'issue-2')} && echo OTHER-VISIBLE || echo other-hidden`,
        `ls ${join(checkout, '.git', 'worktrees')}`,
        // Lands in the sandbox's own /tmp, never on the host.
        `echo x > ${join(root, 'outside')}`,
      ].join('; '),
    );
    const lines = result.output.trim().split('\n');
    expect(lines[0]).toBe('ok');
    expect(result.output).toContain('etc-readonly');
    expect(result.output).toContain('state-hidden');
    expect(result.output).toContain('other-hidden');
    expect(result.output).not.toContain('issue-2');
    expect(existsSync(join(worktree, 'made-inside'))).toBe(true);
    expect(existsSync(join(root, 'outside'))).toBe(false);
    expect(existsSync('/etc/issueloop-pwned')).toBe(false);
  });

  it('regression: holds no capability, even when the harness runs as root, so a read-only bind stays read-only', async () => {
    const result = await inSandbox(
      `grep CapEff /proc/self/status; mount -o remount,rw,bind ${worktree}/.. 2>&1; unshare -U -r true 2>&1 || echo no-userns`,
    );
    expect(result.output).toMatch(/CapEff:\s*0+\n/);
    expect(result.output).toContain('no-userns');
  });

  it("regression: no role shares the host's network namespace (setup had the host's network)", async () => {
    const hostNet = readFileSync('/proc/net/dev', 'utf8');
    const scope = await claudeScope('sh', env);
    const claude = await sandboxes.claude(scope);
    for (const sandbox of [sandboxes.commands, await sandboxes.setup(), claude]) {
      const result = await runIn('cat /proc/net/dev; readlink /proc/self/ns/net', sandbox);
      const devices = result.output
        .split('\n')
        .filter((line) => line.includes(':') && !line.startsWith('net:'));
      expect(devices.map((line) => line.trim().split(':')[0])).toEqual(['lo']);
      expect(result.output).toMatch(/net:\[\d+\]/);
      expect(result.output).not.toContain(readlinkSync('/proc/self/ns/net'));
    }
    // The host has more than loopback, so the check above could have failed.
    expect(hostNet.split('\n').filter((line) => line.includes(':')).length).toBeGreaterThan(1);
    await rm(scope.scratch, { recursive: true, force: true });
  });

  it('gives the claude role one namespace per session, however often the engine asks, apart from the commands', async () => {
    const scope = await claudeScope('sh', env);
    const netOf = async (sandbox: WorktreeSandboxes['commands']) =>
      (await runIn('readlink /proc/self/ns/net', sandbox)).output.trim();
    const first = await netOf(await sandboxes.claude(scope));
    expect(first).toMatch(/^net:\[\d+\]$/);
    expect(await netOf(await sandboxes.claude(scope))).toBe(first);
    expect(await netOf(sandboxes.commands)).not.toBe(first);
    expect(await netOf(await sandboxes.setup())).not.toBe(await netOf(sandboxes.commands));
    await rm(scope.scratch, { recursive: true, force: true });
  });

  it('points every role at the egress proxy; Node uses it only where the role may reach a host', async () => {
    for (const sandbox of [sandboxes.commands, await sandboxes.setup()]) {
      const inside = sandbox.env({ PATH: '/usr/bin' });
      expect(inside.HTTPS_PROXY).toBe('http://127.0.0.1:3128');
      expect(inside.NO_PROXY).toContain('127.0.0.1');
    }
    // Default settings: the commands reach no host, so Node is spared the proxy's start-up cost;
    // setup's registries are detected from a worktree without manifests: none either.
    expect(sandboxes.commands.env({}).NODE_USE_ENV_PROXY).toBeUndefined();
  });

  it('starts the setup network only when setup runs: a session without session.setup pays for one holder, and setup() asked twice starts one more', async () => {
    const holders = () =>
      spawnSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter((line) => line.includes('/run/issueloop/bridge.mjs')).length;
    const before = holders();
    const dirs = await worktreeGitDirs(worktree);
    const session = await (await testSandboxHost()).forWorktree({ worktree, git: dirs, agentGitDir });
    try {
      expect(holders()).toBe(before + 1);
      const [first, second] = await Promise.all([session.setup(), session.setup()]);
      expect(second).toBe(first);
      expect(holders()).toBe(before + 2);
    } finally {
      await session.close();
    }
    expect(holders()).toBe(before);
  });

  it('ends every process when the command ends, setsid daemons included', async () => {
    const marker = `issueloop-daemon-${process.pid}-${Date.now()}`;
    await inSandbox(
      `setsid sh -c 'exec -a ${marker} sleep 300' > /dev/null 2>&1 < /dev/null & disown; nohup sleep 301 >/dev/null 2>&1 & echo started`,
    );
    const found = spawnSync('pgrep', ['-f', marker], { encoding: 'utf8' });
    expect(found.stdout.trim()).toBe('');
  });

  it("lets git work in the worktree (status, commit, even rm -rf .git) without showing the token or touching the checkout's repository", async () => {
    // Its own checkout: it commits in the worktree and wipes the worktree's git view.
    const own = await checkoutWithWorktrees();
    onTestFinished(() => own.close());
    const { checkout, worktree } = own;
    const refsBefore = git(checkout, 'for-each-ref');
    const configBefore = readFileSync(join(checkout, '.git', 'config'), 'utf8');
    const result = await runIn(
      [
        'git status --short; echo change > file.txt; git add file.txt',
        'git -c user.name=a -c user.email=a@e commit -qm agent && echo committed && git log --oneline -1 main',
        'git config --get-all http.https://github.com/.extraheader; echo "extraheader=$?"',
        'git config --list --show-origin | grep -i -e extraheader -e authorization; echo "list=$?"',
        `ls ${join(checkout, '.git')}`,
        `touch ${join(checkout, '.git', 'objects', 'pwned')} 2>&1 || echo objects-readonly`,
        'mkdir -p "$(git rev-parse --git-common-dir)/hooks"; echo "exit 0" > "$(git rev-parse --git-common-dir)/hooks/post-index-change"',
        'git config core.fsmonitor "touch /tmp/pwned"; git update-ref -d refs/heads/main; git branch -D other',
        'rm -rf "$(git rev-parse --git-dir)"/* && echo wiped-own-view',
      ].join('; '),
      own.sandboxes.commands,
      worktree,
    );
    expect(result.output).toContain('committed');
    expect(result.output).toContain('extraheader=1');
    expect(result.output).toContain('list=1');
    expect(result.output).toContain('objects-readonly');
    expect(result.output).toContain('wiped-own-view');
    expect(result.output).not.toContain(SECRET);
    expect(result.output).not.toContain(Buffer.from(`x-access-token:${SECRET}`).toString('base64'));
    // The checkout's repository is as it was: config, hooks, refs, and the worktree's own HEAD.
    expect(readFileSync(join(checkout, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(existsSync(join(checkout, '.git', 'hooks', 'post-index-change'))).toBe(false);
    expect(git(checkout, 'for-each-ref')).toBe(refsBefore);
    expect(git(worktree, 'log', '-1', '--format=%s').trim()).toBe('init');
    expect(git(worktree, 'status', '--short')).toContain('file.txt');
  });
});

describe("the claude process's sandbox", () => {
  it('regression: settings and MCP servers it writes are thrown away; only its session files persist (the worktree’s project directory)', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-claude-home-')));
    try {
      mkdirSync(join(home, '.claude'));
      writeFileSync(join(home, '.claude', 'settings.json'), '{"theme":"dark"}');
      writeFileSync(join(home, '.claude.json'), '{"numStartups":1}');
      const scope = await claudeScope('sh', { PATH: env.PATH, HOME: home }, [], worktree);
      const project = claudeProjectDir(worktree);
      const claude = await sandboxes.claude(scope);
      const result = await runShell(
        [
          'cat ~/.claude/settings.json',
          'echo \'{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/pwned"}]}]}}\' > ~/.claude/settings.json',
          'echo \'{"mcpServers":{"x":{"command":"sh"}}}\' > ~/.claude.json',
          `echo session > ~/.claude/projects/${project}/s.jsonl && echo wrote`,
          'mkdir -p ~/.claude/projects/p && echo other > ~/.claude/projects/p/s.jsonl',
        ].join('; '),
        {
          cwd: worktree,
          env: { PATH: env.PATH, HOME: home },
          timeoutMs: 20_000,
          maxOutputChars: 10_000,
          signal: new AbortController().signal,
          sandbox: claude,
        },
      );
      await rm(scope.scratch, { recursive: true, force: true });
      expect(result.output).toContain('{"theme":"dark"}');
      expect(result.output).toContain('wrote');
      expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).toBe('{"theme":"dark"}');
      expect(readFileSync(join(home, '.claude.json'), 'utf8')).toBe('{"numStartups":1}');
      expect(readFileSync(join(home, '.claude', 'projects', project, 's.jsonl'), 'utf8')).toBe('session\n');
      // Only the worktree's project directory is the real one: another is thrown away with the copy.
      expect(existsSync(join(home, '.claude', 'projects', 'p'))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('the kernel keyring', () => {
  it('regression: the session keyring of the process that starts the sandbox is out of reach (keyctl, add_key, request_key refused)', async () => {
    // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING) and add_key, by number (x86_64, aarch64).
    const script = [
      'import ctypes, errno, platform',
      'libc = ctypes.CDLL(None, use_errno=True)',
      "nrs = {'x86_64': (250, 248), 'aarch64': (219, 217)}[platform.machine()]",
      'print("keyctl", libc.syscall(nrs[0], 0, -3, 0), errno.errorcode.get(ctypes.get_errno()))',
      'print("add_key", libc.syscall(nrs[1], b"user", b"k", b"v", 1, -3), errno.errorcode.get(ctypes.get_errno()))',
    ].join('\n');
    const outside = spawnSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' });
    expect(outside.stdout).toMatch(/^keyctl \d+ None/);
    writeFileSync(join(worktree, 'keyring.py'), script);
    const inside = await inSandbox('/usr/bin/python3 keyring.py; rm keyring.py');
    expect(inside.output).toContain('keyctl -1 EPERM');
    expect(inside.output).toContain('add_key -1 EPERM');
  });
});
