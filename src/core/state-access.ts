import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StateAccessError } from './errors.js';

const STATE_DIR_SETTING = 'state_dir (issueloop.config.yaml, ISSUELOOP_STATE_DIR or --set state_dir=<dir>)';

/** The first existing path at or above `path`, when it is not a directory. */
async function nonDirectoryAt(path: string): Promise<string | undefined> {
  for (let p = path; ; p = dirname(p)) {
    const found = await stat(p).catch(() => undefined);
    if (found) return found.isDirectory() ? undefined : p;
    if (dirname(p) === p) return undefined;
  }
}

/**
 * What a filesystem error on issueloop's own state means for the person running it, or undefined when
 * it is none of these: a read-only file system, missing permission, a directory where `target.path`
 * (a state file) should be, or a file where a directory should be. Classified once, where the state
 * is touched, so no caller retries what waiting cannot fix.
 */
export async function stateAccessErrorOf(
  err: unknown,
  target: { path: string; action: 'read' | 'write' },
): Promise<StateAccessError | undefined> {
  if (err instanceof StateAccessError) return err;
  const { code, path: failed } = err as NodeJS.ErrnoException;
  const path = failed ?? target.path;
  switch (code) {
    case 'EROFS':
      return new StateAccessError(
        path,
        'read_only',
        `cannot write ${path}: read-only file system; point ${STATE_DIR_SETTING} at a writable directory`,
        { cause: err },
      );
    case 'EACCES':
    case 'EPERM':
      return new StateAccessError(
        path,
        'permission',
        `cannot ${target.action} ${path}: permission denied (${code}); fix its permissions for the user ` +
          `running issueloop, or point ${STATE_DIR_SETTING} at a directory it can write`,
        { cause: err },
      );
    case 'EISDIR':
      return new StateAccessError(
        target.path,
        'is_directory',
        `${target.path} is a directory, but issueloop keeps a file there; move it away ` +
          `(mv ${target.path} ${target.path}.aside) or point ${STATE_DIR_SETTING} at another directory`,
        { cause: err },
      );
    case 'ENOTDIR':
    case 'EEXIST': {
      // ENOTDIR: a component above `path` is not a directory. EEXIST (from mkdir): `path` itself is not.
      const file = await nonDirectoryAt(code === 'ENOTDIR' ? dirname(path) : path);
      if (!file) return undefined;
      return new StateAccessError(
        file,
        'not_directory',
        `${file} is a file, but issueloop needs a directory there for its state; move the file away ` +
          `or point ${STATE_DIR_SETTING} at another directory`,
        { cause: err },
      );
    }
    default:
      return undefined;
  }
}

/** Runs `work`, turning the errors `stateAccessErrorOf` knows into a `StateAccessError`. */
export async function withStateAccess<T>(
  target: { path: string; action: 'read' | 'write' },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw (await stateAccessErrorOf(err, target)) ?? err;
  }
}
