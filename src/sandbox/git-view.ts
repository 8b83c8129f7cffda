import { join } from 'node:path';
import type { Mount } from './bwrap-args.js';

/** Where a worktree's git metadata lives, read by the harness before the agent could change anything. */
export interface WorktreeGitDirs {
  /** The shared `.git` of the checkout (`git rev-parse --git-common-dir`). */
  common: string;
  /** The worktree's own admin directory, `<common>/worktrees/<name>` (`git rev-parse --git-dir`). */
  admin: string;
}

/**
 * Settings the agent's own git needs to read the repository and commit, and nothing that runs a
 * program, sends a credential or redirects a URL: no hooksPath, fsmonitor, filters, textconv, aliases,
 * pagers, editors, credential helpers, `http.*` (actions/checkout's extraheader holds the token),
 * `url.*`, `include*`, `core.sshCommand`, `remote.*.pushurl`. Of the extensions only the object
 * format is kept: the private git dir keeps its refs in files and has no per-worktree config.
 */
const KEPT_KEYS: readonly RegExp[] = [
  /^core\.(repositoryformatversion|filemode|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath|checkstat|trustctime|longpaths)$/,
  /^extensions\.objectformat$/,
  /^remote\.[^\n]+\.(url|fetch)$/,
  /^branch\.[^\n]+\.(remote|merge)$/,
  /^user\.(name|email)$/,
  /^init\.defaultbranch$/,
];

/** `git config --list -z` output: `key\nvalue\0` entries (a key set without `=` has no newline). */
export function parseConfigList(text: string): Array<[string, string]> {
  return text
    .split('\0')
    .filter((entry) => entry !== '')
    .map((entry) => {
      const at = entry.indexOf('\n');
      return at === -1 ? [entry, 'true'] : [entry.slice(0, at), entry.slice(at + 1)];
    });
}

/** Credentials written into a remote URL (`https://x-access-token:<token>@github.com/…`) are dropped. */
function withoutUserinfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

function quote(value: string): string {
  const escaped = value
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t');
  return `"${escaped}"`;
}

/**
 * The config of the agent's private git dir: the kept keys of the shared config, in their original
 * order, grouped by section, in a repository that is not bare (its worktree is the one whose `.git`
 * file leads to it).
 */
export function sanitizedGitConfig(entries: ReadonlyArray<readonly [string, string]>): string {
  const sections = new Map<string, string[]>([['[core]', ['\tbare = false']]]);
  for (const [rawKey, rawValue] of entries) {
    const key = rawKey.toLowerCase();
    if (!KEPT_KEYS.some((pattern) => pattern.test(key))) continue;
    const first = rawKey.indexOf('.');
    const last = rawKey.lastIndexOf('.');
    const section = rawKey.slice(0, first).toLowerCase();
    const subsection = last > first ? rawKey.slice(first + 1, last) : undefined;
    const name = rawKey.slice(last + 1).toLowerCase();
    const value = /^remote\..+\.url$/.test(key) ? withoutUserinfo(rawValue) : rawValue;
    if (/[\0\r]/.test(value) || (subsection !== undefined && /[\0\n\r]/.test(subsection))) continue;
    const header =
      subsection === undefined
        ? `[${section}]`
        : `[${section} "${subsection.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`;
    const lines = sections.get(header) ?? [];
    lines.push(`\t${name} = ${quote(value)}`);
    sections.set(header, lines);
  }
  return [...sections].map(([header, lines]) => `${header}\n${lines.join('\n')}\n`).join('');
}

/**
 * The worktree's git as the sandbox shows it: at the path its `.git` file names (the worktree's admin
 * directory), a private git dir the harness made for this session — the clean config, a copy of the
 * refs and the index, its own objects borrowing the repository's through `objects/info/alternates` —
 * and the repository's objects read-only. The shared `.git` itself (config, hooks, info, refs,
 * reflogs, the other worktrees) is not there at all: whatever the agent does with git, commits and
 * `rm -rf .git` included, happens in its private copy, which the harness never reads and deletes
 * afterwards. The harness judges the worktree's files, not the agent's commits.
 */
export function gitViewMounts(dirs: WorktreeGitDirs, agentGitDir: string): Mount[] {
  const objects = join(dirs.common, 'objects');
  return [
    { kind: 'ro-bind', source: objects, dest: objects },
    { kind: 'bind', source: agentGitDir, dest: dirs.admin },
  ];
}
