import { constants } from 'node:fs';
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { ToolInputError } from './tool-input-error.js';

export type OpenMode = 'read' | 'update' | 'create';

/** Linux names an open directory as a path: `/proc/self/fd/<fd>/<name>` is `openat(fd, name)`. */
const AT_FD = process.platform === 'linux';

const { O_RDONLY, O_RDWR, O_CREAT, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

function errorCode(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

const FLAGS: Record<OpenMode, number> = {
  read: O_RDONLY,
  update: O_RDWR,
  create: O_RDWR | O_CREAT,
};

function changedUnderneath(shown: string): ToolInputError {
  return new ToolInputError(
    `${shown} changed while it was being opened (a symlink or a swapped directory on the way): paths must stay inside the worktree.`,
  );
}

/** Walks `parts` from `root` one directory at a time, never through a symlink; creates missing ones. */
async function openDirectory(root: string, parts: readonly string[], create: boolean, shown: string) {
  let dir = await open(root, O_RDONLY | O_DIRECTORY);
  try {
    for (const part of parts) {
      const at = `/proc/self/fd/${dir.fd}/${part}`;
      if (create) {
        await mkdir(at).catch((err: unknown) => {
          if (errorCode(err) !== 'EEXIST') throw err;
        });
      }
      const next = await open(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((err: unknown) => {
        if (errorCode(err) === 'ELOOP' || errorCode(err) === 'ENOTDIR') throw changedUnderneath(shown);
        throw err;
      });
      await dir.close();
      dir = next;
    }
    return dir;
  } catch (err) {
    await dir.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Opens a file of the worktree so that what is read or written is the file inside it, even while
 * something swaps a directory on the way for a symlink (renameat2 RENAME_EXCHANGE from a process of
 * the agent's): every directory from the worktree's root down is opened relative to the one before,
 * without following a symlink, and the file itself with O_NOFOLLOW. The file must be a regular file
 * with one link: a hard link's other name may be anywhere on the machine. Nothing is truncated
 * before these checks; the caller writes through the handle it gets.
 *
 * `realRoot` is the worktree's real path and `relative` the `/`-separated path in it that
 * resolveInside vetted. Elsewhere than Linux the directories are opened by path (the final
 * component still without following a symlink).
 */
export async function openConfined(
  realRoot: string,
  relative: string,
  mode: OpenMode,
  shown: string,
): Promise<FileHandle> {
  const parts = relative.split('/').filter((part) => part !== '' && part !== '.');
  const name = parts.pop();
  if (name === undefined) throw new ToolInputError(`${shown} is a directory, not a file.`);
  let handle: FileHandle;
  if (AT_FD) {
    const dir = await openDirectory(realRoot, parts, mode === 'create', shown);
    try {
      handle = await open(`/proc/self/fd/${dir.fd}/${name}`, FLAGS[mode] | O_NOFOLLOW | O_NONBLOCK, 0o666);
    } catch (err) {
      if (errorCode(err) === 'ELOOP') throw changedUnderneath(shown);
      throw err;
    } finally {
      await dir.close();
    }
  } else {
    if (mode === 'create') await mkdir([realRoot, ...parts].join('/'), { recursive: true });
    handle = await open([realRoot, ...parts, name].join('/'), FLAGS[mode] | O_NOFOLLOW | O_NONBLOCK, 0o666);
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new ToolInputError(`${shown} is a directory, not a file.`);
    // A FIFO or a device would block or never end.
    if (!info.isFile()) throw new ToolInputError(`${shown} is not a regular file.`);
    if (info.nlink > 1) {
      throw new ToolInputError(
        `${shown} is a hard link (${info.nlink} names): the editor refuses files that may also live outside the worktree. Copy it to a new file with bash if you need to change it.`,
      );
    }
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Replaces the whole content through the handle (opened for update or create). */
export async function rewrite(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  await handle.truncate(0);
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, written);
    written += bytesWritten;
  }
}
