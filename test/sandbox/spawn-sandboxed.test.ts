import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  mkdtempSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killGroup, stopGroup } from '../../src/core/process-group.js';
import { type CommandSandbox, UNSANDBOXED } from '../../src/sandbox/sandbox.js';
import { spawnSandboxed } from '../../src/sandbox/spawn-sandboxed.js';
import { until } from '../helpers/until.js';

/**
 * spawnSandboxed in-process with a sandbox of the test's own (its `wrap` runs `sh`): what it passes
 * on, the environment, the descriptors it closes and when, the process group a timeout kills.
 */
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-spawn-sandboxed-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', GIVEN: 'given-value' };

async function finished(child: ChildProcess) {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  return { stdout, stderr, code, signal };
}

/** A file's descriptor, open in this process; `isOpen` says whether that descriptor still names it. */
function fileDescriptor(name: string, text = name) {
  const path = join(dir, name);
  writeFileSync(path, text);
  const fd = openSync(path, 'r');
  const isOpen = () => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  };
  return { fd, isOpen };
}

/** A sandbox that runs `sh -c` on the command, recording what it was asked. */
function shSandbox(extra: { fds?: number[]; held?: number[]; file?: string; args?: string[] } = {}) {
  const asked: { argv: readonly string[]; cwd: string; env: Readonly<Record<string, string>> | undefined }[] =
    [];
  const sandbox: CommandSandbox = {
    kind: 'bwrap',
    wrap(argv, cwd, env) {
      asked.push({ argv, cwd, env });
      return {
        file: extra.file ?? 'sh',
        args: extra.args ?? ['-c', argv.join(' ')],
        fds: extra.fds,
        held: extra.held,
      };
    },
    env: (env) => ({ ...env, HOME: '/sandbox-home', ADDED: 'by-the-sandbox' }),
  };
  return { sandbox, asked };
}

describe('spawnSandboxed: what the command gets', () => {
  it("runs the sandbox's wrapping of argv in cwd, with the sandbox's environment and nothing of the harness's", async () => {
    process.env.ISSUELOOP_HARNESS_ONLY = 'harness-secret';
    try {
      const { sandbox, asked } = shSandbox();
      const child = spawnSandboxed(sandbox, ['pwd;', 'env'], { cwd: dir, env: ENV, stdin: 'ignore' });
      const { stdout, code } = await finished(child);
      expect(code).toBe(0);
      expect(stdout.split('\n')[0]).toBe(dir);
      expect(stdout).toContain('GIVEN=given-value');
      expect(stdout).toContain('ADDED=by-the-sandbox');
      expect(stdout).toContain('HOME=/sandbox-home');
      expect(stdout).not.toContain('harness-secret');
      // The wrapper is told the environment the command will have, to build its prelude from.
      expect(asked).toEqual([
        { argv: ['pwd;', 'env'], cwd: dir, env: { ...ENV, HOME: '/sandbox-home', ADDED: 'by-the-sandbox' } },
      ]);
    } finally {
      delete process.env.ISSUELOOP_HARNESS_ONLY;
    }
  });

  it('unsandboxed, the command gets exactly the scrubbed environment it was given', async () => {
    process.env.ISSUELOOP_HARNESS_ONLY = 'harness-secret';
    try {
      const child = spawnSandboxed(UNSANDBOXED, ['sh', '-c', 'env'], { cwd: dir, env: ENV, stdin: 'ignore' });
      const { stdout } = await finished(child);
      const names = stdout
        .trim()
        .split('\n')
        .map((line) => line.split('=')[0])
        .filter((name) => !['PWD', 'SHLVL', '_'].includes(name ?? ''));
      expect(names.sort()).toEqual(['GIVEN', 'PATH']);
    } finally {
      delete process.env.ISSUELOOP_HARNESS_ONLY;
    }
  });

  it('pipes stdout and stderr apart; stdin "pipe" is written to, "ignore" is at its end at once', async () => {
    const piped = spawnSandboxed(UNSANDBOXED, ['sh', '-c', 'cat; echo err >&2'], {
      cwd: dir,
      env: ENV,
      stdin: 'pipe',
    });
    piped.stdin?.end('the prompt');
    expect(await finished(piped)).toEqual({ stdout: 'the prompt', stderr: 'err\n', code: 0, signal: null });
    const ignored = spawnSandboxed(UNSANDBOXED, ['sh', '-c', 'cat; echo eof'], {
      cwd: dir,
      env: ENV,
      stdin: 'ignore',
    });
    expect(ignored.stdin).toBeNull();
    expect((await finished(ignored)).stdout).toBe('eof\n');
  });

  it('reports the exit code and the signal that ended the command', async () => {
    const failed = spawnSandboxed(UNSANDBOXED, ['sh', '-c', 'exit 7'], {
      cwd: dir,
      env: ENV,
      stdin: 'ignore',
    });
    expect(await finished(failed)).toMatchObject({ code: 7, signal: null });
    const killed = spawnSandboxed(UNSANDBOXED, ['sh', '-c', 'kill -KILL $$'], {
      cwd: dir,
      env: ENV,
      stdin: 'ignore',
    });
    expect(await finished(killed)).toMatchObject({ code: null, signal: 'SIGKILL' });
  });
});

describe('spawnSandboxed: descriptors', () => {
  it('regression: passes the fds as 3, 4, … and closes them here once the child has them (a leak keeps the seccomp file open)', async () => {
    const a = fileDescriptor('fd-a.txt', 'first');
    const b = fileDescriptor('fd-b.txt', 'second');
    const { sandbox } = shSandbox({ fds: [a.fd, b.fd] });
    const child = spawnSandboxed(sandbox, ['cat <&3; echo; cat <&4'], {
      cwd: dir,
      env: ENV,
      stdin: 'ignore',
    });
    expect([a.isOpen(), b.isOpen()]).toEqual([false, false]);
    expect((await finished(child)).stdout).toBe('first\nsecond');
  });

  it('regression: keeps the held fds open while the child runs and closes them when it ends (closing early drops the session network)', async () => {
    const held = fileDescriptor('held.txt');
    const { sandbox } = shSandbox({ held: [held.fd] });
    const child = spawnSandboxed(sandbox, ['read line; echo "$line"'], { cwd: dir, env: ENV, stdin: 'pipe' });
    expect(held.isOpen()).toBe(true);
    const done = finished(child);
    child.stdin?.end('go\n');
    expect((await done).stdout).toBe('go\n');
    expect(held.isOpen()).toBe(false);
  });

  it('closes the held fds when the program cannot be started (an error, not an exit)', async () => {
    const held = fileDescriptor('held-error.txt');
    const { sandbox } = shSandbox({ held: [held.fd], file: join(dir, 'no-such-program') });
    const child = spawnSandboxed(sandbox, ['x'], { cwd: dir, env: ENV, stdin: 'ignore' });
    const [err] = (await once(child, 'error')) as [NodeJS.ErrnoException];
    expect(err.code).toBe('ENOENT');
    expect(held.isOpen()).toBe(false);
  });

  it('closes both the fds and the held ones, and throws, when spawn itself throws', () => {
    const fd = fileDescriptor('throw-fd.txt');
    const held = fileDescriptor('throw-held.txt');
    // A NUL byte in an argument makes spawn throw before any process exists.
    const { sandbox } = shSandbox({ fds: [fd.fd], held: [held.fd], args: ['-c', 'true\0'] });
    expect(() => spawnSandboxed(sandbox, ['x'], { cwd: dir, env: ENV, stdin: 'ignore' })).toThrow(
      /null bytes/,
    );
    expect([fd.isOpen(), held.isOpen()]).toEqual([false, false]);
  });
});

describe('spawnSandboxed: the process group', () => {
  const alive = (pid: number) => {
    try {
      // A zombie waits for its reaper: it runs nothing.
      return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };

  it('regression: the command leads its own process group, so stopping it stops what it started', async () => {
    const child = spawnSandboxed(UNSANDBOXED, ['sh', '-c', 'sleep 300 & echo $!; wait'], {
      cwd: dir,
      env: ENV,
      stdin: 'ignore',
    });
    const pid = child.pid as number;
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    await until(() => out.includes('\n'), 10_000);
    const grandchild = Number(out.trim());
    expect(alive(grandchild)).toBe(true);
    expect(readFileSync(`/proc/${grandchild}/stat`, 'utf8').split(' ')[4]).toBe(String(pid));
    const closed = once(child, 'close');
    const killer = stopGroup(pid);
    const [, signal] = (await closed) as [number | null, NodeJS.Signals | null];
    clearTimeout(killer);
    expect(signal).toBe('SIGTERM');
    await until(() => !alive(grandchild), 10_000);
  });

  it('a command that ignores SIGTERM is killed after the grace period', async () => {
    const child = spawnSandboxed(
      UNSANDBOXED,
      ['sh', '-c', 'trap "" TERM; echo ready; while :; do sleep 1; done'],
      {
        cwd: dir,
        env: ENV,
        stdin: 'ignore',
      },
    );
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    await until(() => out.includes('ready'), 10_000);
    const closed = once(child, 'close');
    stopGroup(child.pid as number, 0);
    const [, signal] = (await closed) as [number | null, NodeJS.Signals | null];
    expect(signal).toBe('SIGKILL');
    // Signalling a group that is gone is not an error.
    expect(() => killGroup(child.pid as number, 'SIGKILL')).not.toThrow();
  });
});
