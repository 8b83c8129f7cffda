import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StateAccessError } from '../../src/core/errors.js';
import { stateAccessErrorOf } from '../../src/core/state-access.js';
import { ensureStateDir } from '../../src/core/state-dir.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-state-access-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An error as Node's fs gives it. */
const fsError = (code: string, path: string, syscall = 'mkdir') =>
  Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, path, syscall });

describe('stateAccessErrorOf', () => {
  it('names the path and the fix on a read-only file system', async () => {
    const error = await stateAccessErrorOf(fsError('EROFS', '/ro/.issueloop/claims.json.lock'), {
      path: '/ro/.issueloop/claims.json',
      action: 'write',
    });
    expect(error).toBeInstanceOf(StateAccessError);
    expect(error).toMatchObject({ code: 'state_unusable', problem: 'read_only' });
    expect(error?.message).toBe(
      'cannot write /ro/.issueloop/claims.json.lock: read-only file system; point state_dir ' +
        '(issueloop.config.yaml, ISSUELOOP_STATE_DIR or --set state_dir=<dir>) at a writable directory',
    );
  });

  it.each(['EACCES', 'EPERM'])('says to fix the permissions on %s', async (code) => {
    const error = await stateAccessErrorOf(fsError(code, '/s/claims.json', 'open'), {
      path: '/s/claims.json',
      action: 'read',
    });
    expect(error).toMatchObject({ problem: 'permission', path: '/s/claims.json' });
    expect(error?.message).toMatch(
      new RegExp(`^cannot read /s/claims.json: permission denied \\(${code}\\); fix its permissions`),
    );
  });

  it('names a directory where a state file belongs (EISDIR carries no path of its own)', async () => {
    const error = await stateAccessErrorOf(Object.assign(new Error('EISDIR'), { code: 'EISDIR' }), {
      path: '/s/claims.json',
      action: 'read',
    });
    expect(error).toMatchObject({ problem: 'is_directory', path: '/s/claims.json' });
    expect(error?.message).toMatch(
      /^\/s\/claims.json is a directory, but issueloop keeps a file there; move it/,
    );
  });

  it('finds the file that stands where the state directory belongs', async () => {
    const stateDir = join(dir, 'state-file');
    await writeFile(stateDir, 'not a directory');
    const error = await stateAccessErrorOf(fsError('ENOTDIR', join(stateDir, 'claims.json.lock')), {
      path: join(stateDir, 'claims.json'),
      action: 'write',
    });
    expect(error).toMatchObject({ problem: 'not_directory', path: stateDir });
    expect(error?.message).toMatch(/is a file, but issueloop needs a directory there for its state/);
  });

  it('leaves every other error alone, and EEXIST of a path that is a directory', async () => {
    const target = { path: join(dir, 'x'), action: 'write' } as const;
    expect(await stateAccessErrorOf(fsError('ENOSPC', join(dir, 'x')), target)).toBeUndefined();
    expect(await stateAccessErrorOf(new Error('boom'), target)).toBeUndefined();
    await mkdir(join(dir, 'exists'));
    expect(await stateAccessErrorOf(fsError('EEXIST', join(dir, 'exists')), target)).toBeUndefined();
  });
});

describe('ensureStateDir', () => {
  it('regression: a state directory that is a file is a StateAccessError naming it, not a bare EEXIST', async () => {
    const stateDir = join(dir, 'plain-file');
    await writeFile(stateDir, '');
    const error = await ensureStateDir(stateDir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateAccessError);
    expect(error).toMatchObject({ path: stateDir, problem: 'not_directory' });
  });
});
