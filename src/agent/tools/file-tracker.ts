import type { FileOperation, FileOperations } from './types.js';

/** Records which worktree files the agent read, created and modified, for the session report. */
export interface FileTracker {
  record(op: FileOperation, relativePath: string): void;
  snapshot(): FileOperations;
}

/** Backslashes and `./` prefixes would make the same file appear twice in a report. */
function normalize(relativePath: string): string {
  let path = relativePath.replaceAll('\\', '/').replace(/\/{2,}/g, '/');
  while (path.startsWith('./')) path = path.slice(2);
  return path.endsWith('/') && path.length > 1 ? path.slice(0, -1) : path;
}

export function createFileTracker(): FileTracker {
  const read = new Set<string>();
  // The first write decides: a file the agent created is new to the branch however often it is edited
  // afterwards, and a file that existed stays "modified" even if it was deleted and re-created.
  const writes = new Map<string, 'created' | 'modified'>();

  return {
    record(op, relativePath) {
      const path = normalize(relativePath);
      if (path === '') return;
      if (op === 'read') read.add(path);
      else if (!writes.has(path)) writes.set(path, op);
    },
    snapshot() {
      const created: string[] = [];
      const modified: string[] = [];
      for (const [path, op] of writes) (op === 'created' ? created : modified).push(path);
      return { read: [...read].sort(), created: created.sort(), modified: modified.sort() };
    },
  };
}
