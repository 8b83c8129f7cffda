import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, sep } from 'node:path';
import type { Mount } from './bwrap-args.js';

/**
 * The system, read-only: programs, libraries and their configuration. Not /home, /root, /var, /run,
 * /srv, /mnt, /media or /tmp, where users' and services' data lives.
 */
export const SYSTEM_ROOTS: readonly string[] = Object.freeze([
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
  '/nix',
]);

/** At most this many toolchain directories are shown; a PATH longer than that is someone's mistake. */
const MAX_TOOL_DIRS = 64;

function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The system roots that exist, each as it is on the host: a directory bound read-only, or a symlink. */
export function systemMounts(roots: readonly string[] = SYSTEM_ROOTS): Mount[] {
  const mounts: Mount[] = [];
  for (const root of roots) {
    try {
      const info = lstatSync(root);
      if (info.isSymbolicLink()) mounts.push({ kind: 'symlink', target: readlinkSync(root), dest: root });
      else if (info.isDirectory()) mounts.push({ kind: 'ro-bind', source: root, dest: root });
    } catch {
      // Not on this host.
    }
  }
  return mounts;
}

/**
 * Toolchains installed outside the system directories (nvm, the npm `node` package, ~/.cargo/bin):
 * each PATH directory outside them, read-only, and the real directories its symlinks lead to, so that
 * `node`, `npm test` or `cargo test` work in the sandbox as in the user's shell. Only these
 * directories are shown, never the home around them.
 */
export function toolDirectories(
  pathVariable: string | undefined,
  extra: readonly string[] = [],
  options: { home?: string | undefined; roots?: readonly string[] } = {},
): string[] {
  const roots = options.roots ?? SYSTEM_ROOTS;
  const home = options.home ? (realOrUndefined(options.home) ?? options.home) : undefined;
  const found = new Set<string>();
  const covered = (path: string) => roots.some((root) => isUnder(path, root));
  // `~/bin` on PATH with one relative symlink in it showed the whole home, ~/.ssh included (found
  // by the security review): a directory that is the home, or holds it, is never shown.
  const holdsHome = (path: string) => path === '/' || (home !== undefined && isUnder(home, path));
  const add = (path: string | undefined) => {
    if (path === undefined || covered(path) || holdsHome(path) || found.size >= MAX_TOOL_DIRS) return;
    found.add(path);
  };
  for (const entry of [...(pathVariable ?? '').split(delimiter), ...extra]) {
    if (entry === '' || !isAbsolute(entry)) continue;
    const real = realOrUndefined(entry);
    if (real === undefined || covered(real)) continue;
    add(real);
    let names: string[];
    try {
      names = readdirSync(real);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(real, name);
      try {
        if (!lstatSync(path).isSymbolicLink()) continue;
      } catch {
        continue;
      }
      const target = realOrUndefined(path);
      // A launcher in bin/ needs its installation: <prefix>/bin/node needs <prefix>/lib/node_modules.
      if (target !== undefined) add(installationOf(target));
    }
  }
  // Nested directories are shown through their parent already.
  const sorted = [...found].sort();
  return sorted.filter((dir) => !sorted.some((other) => other !== dir && isUnder(dir, other)));
}

/**
 * What a program needs beside itself: the `node_modules` tree it lives in (an npm package's
 * dependencies are its siblings there), else its own directory. Never `<prefix>` of a `bin/`: for
 * rustup's `~/.cargo/bin/cargo` that was all of `~/.cargo`, registry token included.
 */
export function installationOf(executable: string): string {
  const marker = `${sep}node_modules${sep}`;
  const at = executable.indexOf(marker);
  if (at !== -1) return executable.slice(0, at + marker.length - 1);
  return dirname(executable);
}
