import { closeSync, openSync } from 'node:fs';
import { isAbsolute, sep } from 'node:path';
import type { Log } from '../core/logger.js';
import { bwrapArgs, type Mount } from './bwrap-args.js';
import { closingPrelude, passedOnDescriptors } from './descriptors.js';
import { PROXY_PORT } from './domain-proxy.js';
import { hiddenFileMounts, SYSTEM_ROOTS, systemMounts, toolDirectories } from './host-paths.js';
import type { NetHolder } from './net-holder.js';
import { seccompFilterFile } from './seccomp.js';

/**
 * What runs a command the agent controls (its bash tool, the verify and setup commands, the `claude`
 * process): `bwrap` confines it, `none` runs it as it is (only when the user chose `sandbox.mode: none`).
 */
export interface CommandSandbox {
  readonly kind: 'bwrap' | 'none';
  /**
   * The program to spawn and its arguments for `argv` run in `cwd` with `env` (this sandbox's `env()`),
   * inside the sandbox; `fds`, when given, are descriptors the spawner passes as the child's fd 3, 4,
   * … and then closes, `held` ones the spawner keeps open until the child ends and then closes
   * (spawn-sandboxed.ts). Nothing else of the harness's reaches the command but stdin, stdout, stderr.
   */
  wrap(
    argv: readonly string[],
    cwd: string,
    env?: Readonly<Record<string, string>>,
  ): { file: string; args: string[]; fds?: number[]; held?: number[] };
  /** The environment inside: `env` with HOME and TMPDIR pointing where the sandbox has them. */
  env(env: Readonly<Record<string, string>>): Record<string, string>;
}

export interface SandboxScope {
  /** Writable: the worktree (and nothing else of the checkout). */
  writable: readonly string[];
  /** Read-only besides the system and the toolchains on PATH (e.g. `sandbox.read_only`). */
  readOnly?: readonly string[];
  /** Mounts after the writable ones: the worktree's git view (see git-view.ts). */
  extraMounts?: readonly Mount[];
  /**
   * The home inside. An empty tmpfs at the user's home path by default; `binds` shows chosen
   * directories in it (e.g. `~/.claude` for the `claude` process).
   */
  home?: { path?: string; binds?: ReadonlyArray<{ source: string; dest: string }> };
  /**
   * The session role's network namespace (net-holder.ts): loopback, and the egress proxy at
   * http://127.0.0.1:PROXY_PORT. Without one, each command gets a namespace of its own with loopback
   * alone.
   */
  net?: NetHolder;
  /**
   * Whether Node's own fetch and http use the proxy (NODE_USE_ENV_PROXY=1): only where the role may
   * reach a host, since it costs every Node process 35–70 ms at start (bench/sandbox).
   */
  nodeUsesProxy?: boolean;
  /**
   * Never shown as a toolchain, nor a PATH directory holding one or lying in one: the checkout, the
   * worktrees, the state directory (host-paths.ts).
   */
  protect?: readonly string[];
  /** Where the PATH directories left out are said, once each. */
  log?: Log | undefined;
  /** Files never readable inside, wherever a mount would show them: the GitHub App's key file. */
  hide?: readonly string[];
}

export interface HostFacts {
  /** bubblewrap's executable. */
  bwrap: string;
  /** util-linux's nsenter, which joins a session's network namespace. */
  nsenter: string;
  /** The harness's PATH: its toolchain directories are shown read-only. */
  path: string | undefined;
  /** The user's home, which the sandbox replaces with an empty one. */
  home: string | undefined;
}

const FALLBACK_HOME = '/home/issueloop';

function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The user's home path, unless it is `/` or a system directory, which a tmpfs must never cover. */
export function sandboxHome(home: string | undefined): string {
  if (home === undefined || !isAbsolute(home) || home === '/') return FALLBACK_HOME;
  return SYSTEM_ROOTS.some((root) => isUnder(home, root)) ? FALLBACK_HOME : home;
}

/** The PATH directories left out that were logged already (a PATH is short: this stays small). */
const told = new Set<string>();

/** The mounts for one scope, in the order bwrap must apply them. */
export function sandboxMounts(scope: SandboxScope, facts: HostFacts): Mount[] {
  const home = sandboxHome(scope.home?.path ?? facts.home);
  const tools = toolDirectories(facts.path, scope.readOnly ?? [], {
    home: facts.home,
    protect: scope.protect ?? [],
    refused(dir, why) {
      if (told.has(dir)) return;
      told.add(dir);
      scope.log?.warn({ dir }, `sandbox: ${dir} is on PATH but not shown in the sandbox: ${why}`);
    },
  });
  const mounts: Mount[] = [
    ...systemMounts(),
    { kind: 'tmpfs', dest: '/tmp' },
    { kind: 'tmpfs', dest: home },
    ...tools.map((dir): Mount => ({ kind: 'ro-bind', source: dir, dest: dir })),
    ...(scope.home?.binds ?? []).map((bind): Mount => ({ kind: 'bind', ...bind })),
    ...scope.writable.map((dir): Mount => ({ kind: 'bind', source: dir, dest: dir })),
    ...(scope.extraMounts ?? []),
  ];
  // Last: a cover must lie over every mount that shows the file.
  return [...mounts, ...hiddenFileMounts(mounts, scope.hide ?? [])];
}

const PROXY_URL = `http://127.0.0.1:${PROXY_PORT}`;
const PROXY_ENV: Readonly<Record<string, string>> = Object.freeze({
  HTTP_PROXY: PROXY_URL,
  HTTPS_PROXY: PROXY_URL,
  http_proxy: PROXY_URL,
  https_proxy: PROXY_URL,
  // Servers a test starts inside the sandbox stay direct.
  NO_PROXY: 'localhost,127.0.0.1,::1',
  no_proxy: 'localhost,127.0.0.1,::1',
  npm_config_proxy: PROXY_URL,
  npm_config_https_proxy: PROXY_URL,
});

export function createBwrapSandbox(scope: SandboxScope, facts: HostFacts): CommandSandbox {
  // Computed once per scope: a session runs many commands with the same view.
  const mounts = sandboxMounts(scope, facts);
  const home = sandboxHome(scope.home?.path ?? facts.home);
  const { net } = scope;
  return {
    kind: 'bwrap',
    wrap(argv, cwd, env = {}) {
      const network = net ? 'inherit' : 'own';
      // bwrap consumes the seccomp descriptor and nsenter is given none: what the harness inherited
      // is all that could still reach the command, and then a prelude closes it (descriptors.ts).
      const command = passedOnDescriptors().length > 0 ? closingPrelude(argv, env) : argv;
      const args = bwrapArgs({ mounts, network, cwd, argv: command, seccompFd: 3 });
      // A fresh descriptor each time: bwrap reads it to the end.
      const seccomp = openSync(seccompFilterFile(), 'r');
      if (!net) return { file: facts.bwrap, args, fds: [seccomp] };
      try {
        const entered = net.enter(facts.bwrap, args);
        return { file: entered.file, args: entered.args, fds: [seccomp], held: entered.held };
      } catch (err) {
        closeSync(seccomp);
        throw err;
      }
    },
    env: (env) => ({
      ...env,
      HOME: home,
      TMPDIR: '/tmp',
      ...(net ? PROXY_ENV : {}),
      ...(net && scope.nodeUsesProxy ? { NODE_USE_ENV_PROXY: '1' } : {}),
    }),
  };
}

/** `sandbox.mode: none`: commands run as they are, with the scrubbed environment only. */
export const UNSANDBOXED: CommandSandbox = Object.freeze({
  kind: 'none' as const,
  wrap: (argv: readonly string[]) => ({ file: argv[0] ?? 'bash', args: argv.slice(1) }),
  env: (env: Readonly<Record<string, string>>) => ({ ...env }),
});
