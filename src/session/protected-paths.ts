import { posix } from 'node:path';
import { protectedGlobs } from '../config/protected-paths.js';
import { compileGlob, type PathGlob } from '../core/path-glob.js';
import type { GitOptions } from './git/run-git.js';
import { type StagedEntry, SYMLINK_MODE, stagedEntries, symlinkTarget } from './git/staged-entries.js';

/** Where the change is compared: the session's start, and a merged base's commit when there is one. */
export interface ChangeBases {
  /** Where the branch started for this session. */
  start: string;
  /**
   * A follow-up's merge of its base: a path counts only if it also differs from the base, so the
   * base's own commits (a maintainer's workflow change merged into the branch) are not the agent's.
   */
  merged?: string;
}

/**
 * The protected paths the commit would change, sorted: each path touched (added, modified, deleted,
 * a mode change; a rename counts at both ends) that a glob covers, that replaces a directory a glob
 * runs through (`.github` made a symlink or a file), or a symlink that points into one.
 */
export async function protectedChanges(
  worktree: string,
  bases: ChangeBases,
  configured: readonly string[],
  git: GitOptions,
): Promise<string[]> {
  const globs = protectedGlobs(configured).map(compileGlob);
  if (globs.length === 0) return [];
  let entries = await stagedEntries(worktree, bases.start, git);
  if (bases.merged !== undefined && bases.merged !== bases.start) {
    const fromMerged = new Set((await stagedEntries(worktree, bases.merged, git)).map((e) => e.path));
    entries = entries.filter((entry) => fromMerged.has(entry.path));
  }
  const hits = new Set<string>();
  for (const entry of entries) {
    if (isProtected(entry.path, globs)) hits.add(entry.path);
    else if (entry.newMode === SYMLINK_MODE && isProtected(await pointsAt(worktree, entry, git), globs))
      hits.add(entry.path);
  }
  return [...hits].sort();
}

function isProtected(path: string | undefined, globs: readonly PathGlob[]): boolean {
  return path !== undefined && globs.some((glob) => glob.covers(path) || glob.leadsTo(path));
}

/** Where a committed symlink leads inside the repository; undefined when it leads out of it. */
async function pointsAt(worktree: string, entry: StagedEntry, git: GitOptions): Promise<string | undefined> {
  const target = await symlinkTarget(worktree, entry.newSha, git);
  if (target.startsWith('/')) return undefined;
  const resolved = posix.normalize(posix.join(posix.dirname(entry.path), target));
  return resolved === '..' || resolved.startsWith('../') ? undefined : resolved.replace(/\/+$/, '');
}

const MAX_LISTED = 5;

/**
 * `protected paths changed: ".github/workflows/x.yml"; …`. Names are the agent's: quoted, with
 * every character outside printable ASCII (line breaks, bidi controls) written as `\uXXXX`.
 */
export function describeProtected(paths: readonly string[]): string {
  const shown = paths.slice(0, MAX_LISTED).map(quotedName);
  const more = paths.length > MAX_LISTED ? `, and ${paths.length - MAX_LISTED} more` : '';
  return `protected paths changed: ${shown.join(', ')}${more}; nothing was committed or pushed: a person makes this change (protected_paths)`;
}

export function quotedName(name: string): string {
  const escaped = [...name.slice(0, 200)]
    .map((c) =>
      /^[\x20-\x7e]$/.test(c) && c !== '"' && c !== '\\'
        ? c
        : `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
    )
    .join('');
  return `"${escaped}${name.length > 200 ? '…' : ''}"`;
}
