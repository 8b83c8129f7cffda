import { type ChildProcess, spawn } from 'node:child_process';
import { link, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findBootFile, readIdentityFiles } from '../../../src/agent/project-files.js';
import { editorFixture } from './editor-fixture.js';
import { useTempDirs } from './temp-dirs.js';

const tempDir = useTempDirs('editor-attacks');
const swappers: ChildProcess[] = [];
afterEach(() => {
  for (const child of swappers.splice(0)) child.kill('SIGKILL');
});

/**
 * Swaps `a` and `b` (a directory and a symlink leading out of the worktree) as fast as it can, with
 * renameat2(RENAME_EXCHANGE): the race a process the agent left running could run against the editor.
 */
function startSwapper(a: string, b: string): ChildProcess {
  const script = [
    'import ctypes, sys',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'a, b = sys.argv[1].encode(), sys.argv[2].encode()',
    'print("swapping", flush=True)',
    'while True: libc.renameat2(-100, a, -100, b, 2)',
  ].join('\n');
  const child = spawn('python3', ['-c', script, a, b], { stdio: ['ignore', 'pipe', 'inherit'] });
  swappers.push(child);
  return child;
}

describe('text editor against an attacker on the same machine', () => {
  it('regression: refuses a hard link, whose other name may be outside the worktree', async () => {
    const ed = await editorFixture(tempDir);
    const outside = join(await tempDir(), 'secret.txt');
    await writeFile(outside, 'outside secret\n');
    await link(outside, join(ed.root, 'linked.txt'));
    for (const input of [
      { command: 'view', path: 'linked.txt' },
      { command: 'str_replace', path: 'linked.txt', old_str: 'outside', new_str: 'pwned' },
      { command: 'insert', path: 'linked.txt', insert_line: 0, insert_text: 'pwned' },
      { command: 'create', path: 'linked.txt', file_text: 'pwned' },
    ]) {
      const result = await ed.run(input);
      expect(result).toMatchObject({ isError: true });
      expect(result.content).toContain('hard link');
      expect(result.content).not.toContain('outside secret');
    }
    expect(await readFile(outside, 'utf8')).toBe('outside secret\n');
  });

  it('regression: a directory swapped for a symlink mid-write (renameat2 RENAME_EXCHANGE) never gets a write outside', async () => {
    const ed = await editorFixture(tempDir);
    const outsideDir = await tempDir();
    await writeFile(join(outsideDir, 'target.txt'), 'outside\n');
    await mkdir(join(ed.root, 'dir'));
    await writeFile(join(ed.root, 'dir', 'target.txt'), 'inside\n');
    await symlink(outsideDir, join(ed.root, 'swap'));
    const swapper = startSwapper(join(ed.root, 'dir'), join(ed.root, 'swap'));
    await new Promise((resolve) => swapper.stdout?.once('data', resolve));
    let written = 0;
    for (let i = 0; i < 300; i++) {
      const created = await ed.run({ command: 'create', path: `dir/new-${i}.txt`, file_text: 'pwned\n' });
      const replaced = await ed.run({ command: 'create', path: 'dir/target.txt', file_text: 'pwned\n' });
      if (!created.isError) written++;
      if (!replaced.isError) written++;
    }
    swapper.kill('SIGKILL');
    // The race was run: some writes landed (inside), the rest were refused.
    expect(written).toBeGreaterThan(0);
    expect(await readFile(join(outsideDir, 'target.txt'), 'utf8')).toBe('outside\n');
    const { readdir } = await import('node:fs/promises');
    expect((await readdir(outsideDir)).sort()).toEqual(['target.txt']);
  });
});

describe('identity and boot files the harness reads from the worktree', () => {
  it('regression: a hard link or symlink to a file elsewhere never puts that file into the prompt', async () => {
    const root = await tempDir();
    const outside = join(await tempDir(), 'id_rsa');
    await writeFile(outside, '-----BEGIN OPENSSH PRIVATE KEY----- not for the model\n');
    await mkdir(join(root, '.issueloop'));
    await link(outside, join(root, '.issueloop', 'IDENTITY.md'));
    await symlink(outside, join(root, 'boot.md'));
    expect(await readIdentityFiles(root, ['.issueloop/IDENTITY.md'])).toBe('');
    const boot = await findBootFile(root, undefined, 'boot.md');
    expect(boot.boot).toBeUndefined();
    expect(boot.warnings.join('\n')).toContain('outside the worktree');
    // An ordinary file still works.
    await writeFile(join(root, '.issueloop', 'OTHER.md'), 'be terse\n');
    expect(await readIdentityFiles(root, ['.issueloop/OTHER.md'])).toContain('be terse');
  });
});
