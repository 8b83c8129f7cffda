import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closingPrelude } from '../../src/sandbox/descriptors.js';

const FD = 40;

/** Runs `source` in a Node child holding an inheritable pipe at fd 40 (as a harness may inherit one). */
async function withInherited(source: string): Promise<string> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
    stdio: ['ignore', 'pipe', 'inherit', ...Array<'ignore'>(FD - 3).fill('ignore'), 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  await new Promise((resolve) => child.on('close', resolve));
  return out.trim();
}

const module = JSON.stringify(join(process.cwd(), 'src', 'sandbox', 'descriptors.ts'));

describe('inherited descriptors', () => {
  it('finds what the process inherited without close-on-exec, and an entrypoint closes it', async () => {
    const out = await withInherited(`
      const { closeInheritedDescriptors, inheritableDescriptors } = await import(${module});
      const { existsSync } = await import('node:fs');
      const before = inheritableDescriptors();
      const closed = closeInheritedDescriptors();
      console.log(JSON.stringify({ before, closed, after: inheritableDescriptors(), open: existsSync('/proc/self/fd/${FD}') }));
    `);
    const result = JSON.parse(out) as { before: number[]; closed: number[]; after: number[]; open: boolean };
    expect(result.before).toContain(FD);
    expect(result.closed).toContain(FD);
    expect(result.after).toEqual([]);
    expect(result.open).toBe(false);
  });

  it('after the first scan, checks only what it found: a descriptor closed (its number reused or not) drops out', async () => {
    const out = await withInherited(`
      const { passedOnDescriptors } = await import(${module});
      const { closeSync, openSync } = await import('node:fs');
      const first = passedOnDescriptors();
      closeSync(${FD});
      const gone = passedOnDescriptors();
      // Node's descriptors are close-on-exec: one reusing the number is not passed on.
      const reused = [];
      while (!reused.includes(${FD}) && reused.length < 100) reused.push(openSync('/dev/null', 'r'));
      console.log(JSON.stringify({ first, gone, again: passedOnDescriptors(), reused: reused.includes(${FD}) }));
    `);
    const result = JSON.parse(out) as { first: number[]; gone: number[]; again: number[]; reused: boolean };
    expect(result.first).toContain(FD);
    expect(result.gone).not.toContain(FD);
    expect(result.reused).toBe(true);
    expect(result.again).not.toContain(FD);
  });

  it('prelude: closes everything above stderr, adds no variable, keeps the arguments as they are', async () => {
    const run = async (argv: string[], env: Record<string, string>) => {
      const prelude = closingPrelude(argv, env);
      const child = spawn(prelude[0] as string, prelude.slice(1), {
        env,
        stdio: ['ignore', 'pipe', 'inherit', ...Array<'ignore'>(FD - 3).fill('ignore'), 'pipe'],
      });
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
      });
      await new Promise((resolve) => child.on('close', resolve));
      return out;
    };
    // 0–2, and ls's own directory.
    expect(
      (await run(['ls', '/proc/self/fd'], { PATH: '/usr/bin:/bin' })).split('\n').filter(Boolean),
    ).toEqual(['0', '1', '2', '3']);
    // BASH_ENV is not read (-p): it would run a file of the command's choosing before the closing.
    const dir = mkdtempSync(join(tmpdir(), 'issueloop-bashenv-'));
    const bashEnv = join(dir, 'env.sh');
    writeFileSync(bashEnv, 'echo SOURCED\n');
    try {
      const env = await run(['env'], { PATH: '/usr/bin:/bin', BASH_ENV: bashEnv });
      expect(env.split('\n').filter(Boolean).sort()).toEqual([
        `BASH_ENV=${bashEnv}`,
        'PATH=/usr/bin:/bin',
        'SHLVL=0',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await run(['env'], { PATH: '/usr/bin:/bin', SHLVL: '3' })).toContain('SHLVL=3\n');
    expect(await run(['printf', '%s|', 'a b', "c'd", '$HOME', '*'], { PATH: '/usr/bin:/bin' })).toBe(
      "a b|c'd|$HOME|*|",
    );
  });
});
