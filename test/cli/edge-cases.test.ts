import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, STACK_FRAME } from '../helpers/cli.js';

/**
 * The built CLI with its stdout read like `issueloop … | head -c N` reads it: the reader goes away
 * after `bytes` bytes (0: before anything was written).
 */
function runClosingStdout(
  args: readonly string[],
  options: { bytes: number; env?: Record<string, string> },
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let read = 0;
    if (options.bytes === 0) child.stdout.destroy();
    child.stdout.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read >= options.bytes) child.stdout.destroy();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

describe('a reader that goes away (issueloop … | head)', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'issueloop-pipe-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('regression: `issueloop --help | head -3` ends with 0 and no EPIPE stack trace', async () => {
    for (let i = 0; i < 5; i++) {
      const result = await runClosingStdout(['--help'], { bytes: 0 });
      expect(result.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
      expect(result.stderr).not.toMatch(STACK_FRAME);
      expect(result.code).toBe(0);
    }
  });

  it('regression: `issueloop demo | head -1` ends with 0, quietly, and removes its temporary repository', async () => {
    const result = await runClosingStdout(['demo'], { bytes: 1, env: { TMPDIR: scratch } });
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.code).toBe(0);
    expect((await readdir(scratch)).filter((name) => name.startsWith('issueloop-demo-'))).toEqual([]);
  });
});
