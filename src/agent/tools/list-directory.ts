import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** How deep a directory `view` goes, as in Anthropic's reference editor. */
export const LIST_DEPTH = 2;

function isSkipped(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/**
 * Entries up to two levels below `absolute`, as worktree-relative paths (directories end in `/`),
 * sorted, without hidden entries or node_modules. Symlinked directories are listed but not entered,
 * so the listing never wanders out of the worktree. Stops before the joined entries exceed `maxChars`.
 */
export async function listDirectory(
  absolute: string,
  relative: string,
  maxChars: number,
): Promise<{ entries: string[]; truncated: boolean }> {
  const entries: string[] = [];
  let chars = 0;
  let truncated = false;

  const walk = async (dirAbsolute: string, dirRelative: string, level: number): Promise<void> => {
    // The directory asked for must be readable (its failure is the answer); a subdirectory may not be.
    const read = readdir(dirAbsolute, { withFileTypes: true });
    const children = level === 1 ? await read : await read.catch(() => undefined);
    if (children === undefined) {
      // Its own entry was pushed just before descending.
      entries[entries.length - 1] = `${dirRelative}/ (unreadable)`;
      return;
    }
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      if (truncated) return;
      if (isSkipped(child.name)) continue;
      const childRelative = dirRelative === '.' ? child.name : `${dirRelative}/${child.name}`;
      const entry = child.isDirectory() ? `${childRelative}/` : childRelative;
      if (chars + entry.length + 1 > maxChars) {
        truncated = true;
        return;
      }
      entries.push(entry);
      chars += entry.length + 1;
      if (child.isDirectory() && level < LIST_DEPTH) {
        await walk(join(dirAbsolute, child.name), childRelative, level + 1);
      }
    }
  };

  await walk(absolute, relative, 1);
  return { entries, truncated };
}
