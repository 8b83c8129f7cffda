import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolInputError } from './tool-input-error.js';

export interface ConfinedPath {
  /** Real path on disk (symlinks resolved), safe to hand to fs calls. */
  absolute: string;
  /** Relative to the worktree with `/` separators; `.` for the worktree itself. */
  relative: string;
}

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

function errorCode(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/**
 * Realpath of `absolute`, or of its nearest existing ancestor with the missing tail re-appended, so a
 * file about to be created is judged by the directory it would land in.
 */
async function realpathOfNearest(absolute: string, requested: string): Promise<string> {
  const missing: string[] = [];
  let probe = absolute;
  for (;;) {
    try {
      return join(await realpath(probe), ...missing);
    } catch (err) {
      const code = errorCode(err);
      if (code === 'ELOOP') throw new ToolInputError(`path "${requested}" goes through a symlink loop.`);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    }
    // A dangling symlink would be followed by a write and could create a file anywhere.
    const entry = await lstat(probe).catch(() => undefined);
    if (entry?.isSymbolicLink()) {
      throw new ToolInputError(`path "${requested}" goes through a symlink whose target does not exist.`);
    }
    const parent = dirname(probe);
    if (parent === probe) return join(probe, ...missing);
    missing.unshift(basename(probe));
    probe = parent;
  }
}

/**
 * Resolves a path the model asked for and refuses anything outside the worktree `root`: `..` escapes,
 * absolute paths elsewhere, symlinks (the path or any ancestor) leading out, and git's own files, which
 * the harness owns. Checked before each use; the agent's tools run one at a time, so nothing of its own
 * can swap a checked directory for a symlink in between.
 */
export async function resolveInside(root: string, requested: string): Promise<ConfinedPath> {
  const refuse = (what: string): never => {
    throw new ToolInputError(`path "${requested}" ${what}: paths must stay inside the worktree ${realRoot}.`);
  };
  const realRoot = await realpath(root);
  if (requested.trim() === '') throw new ToolInputError('path is empty: give a path inside the worktree.');
  if (requested.includes('\0')) refuse('contains a NUL byte');

  let lexical: string;
  if (isAbsolute(requested)) {
    // The caller may know the worktree by a symlinked name (e.g. /tmp on macOS); accept either spelling.
    const target = resolve(requested);
    const given = resolve(root);
    if (isInside(realRoot, target)) lexical = target;
    else if (isInside(given, target)) lexical = join(realRoot, relative(given, target));
    else lexical = refuse('is outside the worktree');
  } else {
    lexical = resolve(realRoot, requested);
    if (!isInside(realRoot, lexical)) refuse('escapes the worktree with ".."');
  }

  const absolute = await realpathOfNearest(lexical, requested);
  if (!isInside(realRoot, absolute)) refuse('leads outside the worktree through a symlink');

  const rel = toPosix(relative(realRoot, absolute));
  const viaGit = [rel, toPosix(relative(realRoot, lexical))].some((path) =>
    path.split('/').some((segment) => segment.toLowerCase() === '.git'),
  );
  if (viaGit) {
    throw new ToolInputError(
      `path "${requested}" is inside .git, which the harness owns: commits, branches and pushes are done for you.`,
    );
  }
  return { absolute, relative: rel === '' ? '.' : rel };
}
