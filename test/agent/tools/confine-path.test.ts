import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveInside } from '../../../src/agent/tools/confine-path.js';
import { ToolInputError } from '../../../src/agent/tools/tool-input-error.js';
import { IssueloopError } from '../../../src/core/errors.js';
import { useTempDirs } from './temp-dirs.js';

const tempDir = useTempDirs('confine');

async function worktree(): Promise<{ root: string; outside: string }> {
  const root = await tempDir();
  const outside = await tempDir();
  await mkdir(join(root, 'src'));
  await writeFile(join(root, 'src', 'a.ts'), 'a');
  await writeFile(join(outside, 'secret.txt'), 'secret');
  return { root, outside };
}

async function refusal(root: string, requested: string): Promise<ToolInputError> {
  const err = await resolveInside(root, requested).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ToolInputError))
    throw new Error(`expected a ToolInputError for "${requested}", got ${err}`);
  return err;
}

describe('resolveInside', () => {
  it('resolves a relative path inside the worktree', async () => {
    const { root } = await worktree();
    expect(await resolveInside(root, 'src/a.ts')).toEqual({
      absolute: join(root, 'src', 'a.ts'),
      relative: 'src/a.ts',
    });
  });

  it('normalizes harmless dot segments', async () => {
    const { root } = await worktree();
    expect((await resolveInside(root, './src/../src/./a.ts')).relative).toBe('src/a.ts');
  });

  it('allows the worktree itself as "."', async () => {
    const { root } = await worktree();
    expect(await resolveInside(root, '.')).toEqual({ absolute: root, relative: '.' });
    expect((await resolveInside(root, root)).relative).toBe('.');
  });

  it('refuses ../x', async () => {
    const { root } = await worktree();
    const err = await refusal(root, '../x');
    expect(err.code).toBe('tool_input');
    expect(err).toBeInstanceOf(IssueloopError);
    expect(err.message).toContain('escapes the worktree');
    expect(err.message).toContain('paths must stay inside the worktree');
  });

  it('refuses a/../../x', async () => {
    const { root } = await worktree();
    expect((await refusal(root, 'a/../../x')).message).toContain('escapes the worktree');
  });

  it('refuses an absolute path outside the worktree', async () => {
    const { root, outside } = await worktree();
    expect((await refusal(root, join(outside, 'secret.txt'))).message).toContain('is outside the worktree');
    expect((await refusal(root, '/etc/passwd')).message).toContain('is outside the worktree');
  });

  it('refuses a sibling directory that merely shares the prefix', async () => {
    const { root } = await worktree();
    await refusal(root, `${root}-other/x`);
  });

  it('accepts an absolute path inside the worktree', async () => {
    const { root } = await worktree();
    expect((await resolveInside(root, join(root, 'src', 'a.ts'))).relative).toBe('src/a.ts');
  });

  it('accepts the worktree by a symlinked name', async () => {
    const { root } = await worktree();
    const alias = join(await tempDir(), 'alias');
    await symlink(root, alias);
    expect(await resolveInside(alias, join(alias, 'src', 'a.ts'))).toEqual({
      absolute: join(root, 'src', 'a.ts'),
      relative: 'src/a.ts',
    });
  });

  it('refuses reading through a symlink that points outside', async () => {
    const { root, outside } = await worktree();
    await symlink(outside, join(root, 'out'));
    await symlink(join(outside, 'secret.txt'), join(root, 'secret-link.txt'));
    expect((await refusal(root, 'out/secret.txt')).message).toContain('through a symlink');
    expect((await refusal(root, 'out')).message).toContain('through a symlink');
    expect((await refusal(root, 'secret-link.txt')).message).toContain('through a symlink');
  });

  it('refuses writing a new file beneath a symlinked directory that points outside', async () => {
    const { root, outside } = await worktree();
    await symlink(outside, join(root, 'out'));
    expect((await refusal(root, 'out/new/deeper/file.txt')).message).toContain('through a symlink');
  });

  it('refuses a dangling symlink, which a write would follow anywhere', async () => {
    const { root, outside } = await worktree();
    await symlink(join(outside, 'not-yet'), join(root, 'dangling'));
    expect((await refusal(root, 'dangling')).message).toContain('does not exist');
  });

  it('accepts a symlink that points inside, and reports the real path', async () => {
    const { root } = await worktree();
    await symlink(join(root, 'src'), join(root, 'lib'));
    expect(await resolveInside(root, 'lib/a.ts')).toEqual({
      absolute: join(root, 'src', 'a.ts'),
      relative: 'src/a.ts',
    });
  });

  it('refuses anything inside .git, directly or through a symlink', async () => {
    const { root } = await worktree();
    await mkdir(join(root, '.git'));
    await writeFile(join(root, '.git', 'config'), '');
    await symlink(join(root, '.git'), join(root, 'g'));
    for (const path of ['.git/config', '.git', '.git/hooks/new', 'g/config', '.GIT/config', 'sub/.git']) {
      expect((await refusal(root, path)).message).toContain('inside .git');
    }
  });

  it('allows files that only start with .git', async () => {
    const { root } = await worktree();
    expect((await resolveInside(root, '.gitignore')).relative).toBe('.gitignore');
    expect((await resolveInside(root, '.github/workflows/ci.yml')).relative).toBe('.github/workflows/ci.yml');
  });

  it('accepts a new file in a new subdirectory', async () => {
    const { root } = await worktree();
    expect(await resolveInside(root, 'new/dir/file.ts')).toEqual({
      absolute: join(root, 'new', 'dir', 'file.ts'),
      relative: 'new/dir/file.ts',
    });
  });

  it('refuses an empty path', async () => {
    const { root } = await worktree();
    expect((await refusal(root, '')).message).toContain('path is empty');
    expect((await refusal(root, '   ')).message).toContain('path is empty');
  });
});
