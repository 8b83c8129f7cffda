import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/agent/tools/bash-tool.js';
import { omittedMarker } from '../../../src/agent/tools/trim-output.js';
import { isAlive, processGroupOf, waitForDeath } from './process-alive.js';
import { useTempDirs } from './temp-dirs.js';

const tempDir = useTempDirs('bash');
const signal = new AbortController().signal;

// Kill whatever a failing test left behind (the child and its whole group), so a regression cannot
// leave sleeps running.
const spawned: number[] = [];
afterEach(() => {
  const ownGroup = processGroupOf('self');
  for (const pid of spawned.splice(0)) {
    if (!isAlive(pid)) continue;
    const group = processGroupOf(pid);
    try {
      process.kill(group !== undefined && group !== ownGroup ? -group : pid, 'SIGKILL');
    } catch {
      // Gone in the meantime.
    }
  }
});

async function setup(options: { timeoutMs?: number; maxOutputChars?: number } = {}) {
  const root = await tempDir();
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, LANG: 'C' };
  const tool = createBashTool({
    root,
    env,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxOutputChars: options.maxOutputChars ?? 30_000,
  });
  return { root, tool, run: (command: string, s = signal) => tool.run({ command }, s) };
}

async function childPid(root: string): Promise<number> {
  const pid = Number((await readFile(join(root, 'child.pid'), 'utf8')).trim());
  expect(pid).toBeGreaterThan(1);
  spawned.push(pid);
  return pid;
}

describe('bash tool', () => {
  it('is Anthropic’s bash_20250124 client tool', async () => {
    const { tool } = await setup();
    expect(tool.name).toBe('bash');
    expect(tool.definition).toEqual({ type: 'bash_20250124', name: 'bash' });
  });

  it('runs in the worktree', async () => {
    const { root, run } = await setup();
    expect(await run('pwd -P')).toEqual({ isError: false, content: `${root}\n` });
  });

  it('regression: runs each command in a fresh shell (a cd or export does not carry over)', async () => {
    const { root, run } = await setup();
    expect(await run('cd /; export LEFT_OVER=1; echo "$PWD [$LEFT_OVER]"')).toEqual({
      isError: false,
      content: '/ [1]\n',
    });
    const next = await run('echo "$(pwd -P) [$LEFT_OVER]"');
    expect(next).toEqual({ isError: false, content: `${root} []\n` });
    expect(next.content).not.toContain('[1]');
  });

  it('closes stdin, so a command reading it ends at once', async () => {
    const { run } = await setup();
    expect(await run('cat')).toEqual({ isError: false, content: '(no output)' });
    expect(await run('read line || echo "eof"')).toEqual({ isError: false, content: 'eof\n' });
  });

  it('collects stdout and stderr together', async () => {
    const { run } = await setup();
    const { isError, content } = await run('echo out; echo err >&2');
    expect(isError).toBe(false);
    expect(content.split('\n').sort()).toEqual(['', 'err', 'out']);
  });

  it('reports a non-zero exit as an error with its code', async () => {
    const { run } = await setup();
    expect(await run('echo broken; exit 3')).toEqual({ isError: true, content: 'broken\n[exit code 3]' });
    expect(await run('printf partial; false')).toEqual({ isError: true, content: 'partial\n[exit code 1]' });
    expect(await run('exit 7')).toEqual({ isError: true, content: '[exit code 7]' });
  });

  it('reports a shell killed by a signal', async () => {
    const { run } = await setup();
    expect(await run('echo dying; kill -KILL $$')).toEqual({
      isError: true,
      content: 'dying\n[killed by signal SIGKILL]',
    });
  });

  it('returns a command node cannot pass to bash as an error', async () => {
    const { run } = await setup();
    const result = await run('echo a\0b');
    expect(result.isError).toBe(true);
    expect(result.content).toContain('could not start bash');
  });

  it('handles restart and rejects bad input as data', async () => {
    const { tool } = await setup();
    expect(await tool.run({ restart: true }, signal)).toEqual({
      isError: false,
      content: 'tool has been restarted.',
    });
    const numeric = await tool.run({ command: 42 }, signal);
    expect(numeric.isError).toBe(true);
    expect(numeric.content).toMatch(/^invalid input for bash: command: expected string/);
    expect((await tool.run({}, signal)).isError).toBe(true);
    expect((await tool.run({ command: '  ' }, signal)).isError).toBe(true);
  });

  it('kills a command at the timeout, with its background children', async () => {
    const { root, run } = await setup({ timeoutMs: 300 });
    const result = await run('echo started; sleep 1000 & echo $! > child.pid; sleep 1000');
    expect(result).toEqual({
      isError: true,
      content: 'started\n[command timed out after 0.3 s; its process group was killed]',
    });
    expect(await waitForDeath(await childPid(root))).toBe(true);
  });

  it('kills background children that ignore SIGTERM and no longer hold the output pipes', async () => {
    const { root, run } = await setup({ timeoutMs: 300 });
    const result = await run(
      "(trap '' TERM; sleep 1000; true) >/dev/null 2>&1 & echo $! > child.pid; sleep 1000",
    );
    expect(result.isError).toBe(true);
    expect(result.content).toContain('timed out');
    expect(await waitForDeath(await childPid(root))).toBe(true);
  });

  it('a background process started by a command that succeeded does not outlive it', async () => {
    const { root, run } = await setup();
    const result = await run('sleep 1000 >/dev/null 2>&1 & echo $! > child.pid; echo started');
    expect(result).toEqual({ isError: false, content: 'started\n' });
    expect(await waitForDeath(await childPid(root))).toBe(true);
  });

  it('escalates to SIGKILL when the shell itself ignores SIGTERM', async () => {
    const { root, run } = await setup({ timeoutMs: 300 });
    const result = await run("trap '' TERM; sleep 1000 & echo $! > child.pid; sleep 1000");
    expect(result.content).toContain('timed out');
    expect(await waitForDeath(await childPid(root))).toBe(true);
  });

  it('kills the process group on abort and resolves as aborted', async () => {
    const { root, run } = await setup({ timeoutMs: 60_000 });
    const controller = new AbortController();
    const pending = run('sleep 1000 & echo $! > child.pid; sleep 1000', controller.signal);
    // Abort once the background child exists, so there is something to kill.
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const written = await readFile(join(root, 'child.pid'), 'utf8').catch(() => '');
      if (written.endsWith('\n')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    controller.abort();
    expect(await pending).toEqual({ isError: true, content: 'aborted' });
    expect(await waitForDeath(await childPid(root))).toBe(true);
  });

  it('does not start a command when already aborted', async () => {
    const { root, run } = await setup();
    const controller = new AbortController();
    controller.abort();
    expect(await run('touch ran', controller.signal)).toEqual({ isError: true, content: 'aborted' });
    await expect(readFile(join(root, 'ran'))).rejects.toThrow();
  });

  it('trims huge output to head and tail around an omitted marker', async () => {
    const { run } = await setup({ maxOutputChars: 1000 });
    const { isError, content } = await run('echo START; yes | head -c 5000000; echo END');
    expect(isError).toBe(false);
    const total = 'START\n'.length + 5_000_000 + 'END\n'.length;
    expect(content).toBe(
      `START\n${'y\n'.repeat(247)}${omittedMarker(total - 1000)}${'y\n'.repeat(248)}END\n`,
    );
  });

  it('reports a shell that cannot start', async () => {
    const root = await tempDir();
    const tool = createBashTool({
      root: join(root, 'missing'),
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 5_000,
      maxOutputChars: 100,
    });
    const result = await tool.run({ command: 'true' }, signal);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('could not start bash');
  });
});
