import { mkdirSync } from 'node:fs';
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
 * Settings a worktree needs to read its repository and commit, and nothing that runs a program, sends
 * a credential or redirects a URL: no hooksPath, fsmonitor, filters, textconv, aliases, pagers,
 * editors, credential helpers, `http.*` (actions/checkout's extraheader holds the token), `url.*`,
 * `include*`, `core.sshCommand`, `remote.*.pushurl`.
 */
const KEPT_KEYS: readonly RegExp[] = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath|checkstat|trustctime|longpaths)$/,
  /^extensions\.[a-z]+$/,
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
 * The clean copy of the shared config the sandbox shows in place of the real one: the kept keys only,
 * in their original order, grouped by section.
 */
export function sanitizedGitConfig(entries: ReadonlyArray<readonly [string, string]>): string {
  const sections = new Map<string, string[]>();
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
 * The worktree's git as the sandbox shows it: the shared `.git` read-only with the clean config in
 * place of its own, the other worktrees' admin directories hidden, and writable only what a commit on
 * this worktree writes (its admin directory, objects, refs, reflogs). The admin directory's
 * `commondir` and `gitdir` pointers are pinned read-only, so the agent cannot point its git, or the
 * harness's, at a repository it made.
 */
export function gitViewMounts(dirs: WorktreeGitDirs, cleanConfig: string): Mount[] {
  const { common, admin } = dirs;
  // A commit appends to logs/; git does not create it on a read-only parent.
  mkdirSync(join(common, 'logs'), { recursive: true });
  return [
    { kind: 'ro-bind', source: common, dest: common },
    { kind: 'tmpfs', dest: join(common, 'worktrees') },
    { kind: 'bind', source: admin, dest: admin },
    { kind: 'ro-bind', source: join(admin, 'commondir'), dest: join(admin, 'commondir') },
    { kind: 'ro-bind', source: join(admin, 'gitdir'), dest: join(admin, 'gitdir') },
    { kind: 'bind', source: join(common, 'objects'), dest: join(common, 'objects') },
    { kind: 'bind', source: join(common, 'refs'), dest: join(common, 'refs') },
    { kind: 'bind', source: join(common, 'logs'), dest: join(common, 'logs') },
    { kind: 'ro-bind', source: cleanConfig, dest: join(common, 'config') },
  ];
}
