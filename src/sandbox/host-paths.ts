import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
 * In the home, never shown, nor a directory that holds one or lies in one: credentials, tokens,
 * keys, Claude Code's login. A `~/.local/bin` launcher linked to a script at the top of `~/.config`
 * showed all of `~/.config`, gh's token and git's credential store (found by the red team).
 */
const HOME_SECRETS = [
  '.ssh',
  '.gnupg',
  '.password-store',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.terraform.d',
  '.config/gh',
  '.config/git',
  '.config/hub',
  '.config/gcloud',
  '.git-credentials',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.local/share/keyrings',
  '.claude',
  '.claude.json',
];
/** issueloop's own directories in the temp dir: other roles' proxy sockets, the scrubbed ~/.claude.json. */
const PRIVATE_TEMP = [
  'issueloop-egress-',
  'issueloop-model-',
  'issueloop-seccomp-',
  'issueloop-bridge-',
  'issueloop-claude-',
];

export interface ToolDirectoryOptions {
  home?: string | undefined;
  roots?: readonly string[];
  /** Never shown, nor a directory that holds one or lies inside one: the checkout, worktrees, state. */
  protect?: readonly string[];
  /** Told of each directory left out, and why. */
  refused?: (dir: string, why: string) => void;
}

/** Why `path` is never a toolchain directory, or undefined when it may be one. */
function whyNot(path: string, home: string | undefined, protect: readonly string[]): string | undefined {
  if (path === '/') return 'it is the root';
  if (home !== undefined && isUnder(home, path)) return 'it holds the home';
  const secrets = home === undefined ? [] : HOME_SECRETS.map((name) => ({ name, at: join(home, name) }));
  const inSecret = secrets.find(({ at }) => isUnder(path, at));
  if (inSecret !== undefined) return `it is in ~/${inSecret.name}`;
  const holdsSecret = secrets.find(({ at }) => isUnder(at, path));
  if (holdsSecret !== undefined) return `it holds ~/${holdsSecret.name}`;
  const temp = realOrUndefined(tmpdir()) ?? tmpdir();
  if (isUnder(temp, path)) return 'it holds the temporary directory';
  const inTemp = isUnder(path, temp) ? path.slice(temp.length + 1) : undefined;
  if (inTemp !== undefined && PRIVATE_TEMP.some((prefix) => inTemp.startsWith(prefix)))
    return "it is in issueloop's own temporary files";
  const near = protect.find((dir) => isUnder(path, dir) || isUnder(dir, path));
  if (near !== undefined) return `it is, holds or lies in ${near}`;
  // A repository's .git/config holds what actions/checkout or a credential helper put there.
  if (path.split(sep).includes('.git')) return 'it is in a git directory';
  if (existsSync(join(path, '.git'))) return 'it is a git work tree';
  return undefined;
}

/**
 * Toolchains installed outside the system directories (nvm, the npm `node` package, ~/.cargo/bin):
 * each PATH directory outside them, read-only, and the real directories its symlinks lead to, so that
 * `node`, `npm test` or `cargo test` work in the sandbox as in the user's shell. Only these
 * directories are shown, never the home around them, and never one that is, holds or lies in what
 * the sandbox hides (`whyNot`): a workflow putting `$GITHUB_WORKSPACE` on PATH showed the checkout,
 * its .git/config with the job's token (found by the red team).
 */
export function toolDirectories(
  pathVariable: string | undefined,
  extra: readonly string[] = [],
  options: ToolDirectoryOptions = {},
): string[] {
  const roots = options.roots ?? SYSTEM_ROOTS;
  const home = options.home ? (realOrUndefined(options.home) ?? options.home) : undefined;
  const protect = (options.protect ?? []).map((dir) => realOrUndefined(dir) ?? dir);
  const found = new Set<string>();
  const covered = (path: string) => roots.some((root) => isUnder(path, root));
  // `~/bin` on PATH with one relative symlink in it showed the whole home, ~/.ssh included (found
  // by the security review): a directory that is the home, or holds it, is never shown. Directories
  // the user named (`extra`: sandbox.read_only, the claude installation) are not checked further.
  const add = (path: string | undefined, named: boolean) => {
    if (path === undefined || covered(path) || found.has(path) || found.size >= MAX_TOOL_DIRS) return;
    const why = named
      ? path === '/' || (home !== undefined && isUnder(home, path))
        ? 'it is or holds the home'
        : undefined
      : whyNot(path, home, protect);
    if (why === undefined) found.add(path);
    else options.refused?.(path, why);
  };
  const entries = (pathVariable ?? '').split(delimiter).map((entry) => ({ entry, named: false }));
  for (const { entry, named } of [...entries, ...extra.map((entry) => ({ entry, named: true }))]) {
    if (entry === '' || !isAbsolute(entry)) continue;
    const real = realOrUndefined(entry);
    if (real === undefined || covered(real)) continue;
    add(real, named);
    if (!found.has(real)) continue;
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
      if (target !== undefined) add(installationOf(target), named);
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

/**
 * Mounts that cover each of `files` with an empty, unreadable file wherever `mounts` show it: the
 * GitHub App's private key when ISSUELOOP_APP_PRIVATE_KEY is a path in /etc, /opt, a toolchain's
 * directory or one of `sandbox.read_only` (found by the attack tests: the agent read it whole). The
 * file a path leads to is covered, so every symlink to it leads to the cover; a path that is no file,
 * or a file no mount shows, needs nothing.
 */
export function hiddenFileMounts(mounts: readonly Mount[], files: readonly string[]): Mount[] {
  const covers: Mount[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const path = isAbsolute(file) ? realOrUndefined(file) : undefined;
    if (path === undefined || !statSync(path).isFile()) continue;
    for (const mount of mounts) {
      if ((mount.kind !== 'ro-bind' && mount.kind !== 'bind') || !isUnder(path, mount.source)) continue;
      const dest = join(mount.dest, path.slice(mount.source.length));
      if (dest === mount.dest || seen.has(dest)) continue;
      seen.add(dest);
      covers.push({ kind: 'ro-bind', source: '/dev/null', dest });
    }
  }
  return covers;
}
