import { openSync, realpathSync } from 'node:fs';
import { isAbsolute, sep } from 'node:path';
import { bwrapArgs, type Mount } from './bwrap-args.js';
import { BRIDGE_READY, BRIDGE_SCRIPT, PROXY_PORT, PROXY_SOCKET } from './domain-proxy.js';
import { installationOf, SYSTEM_ROOTS, systemMounts, toolDirectories } from './host-paths.js';
import { seccompFilterFile } from './seccomp.js';

/**
 * What runs a command the agent controls (its bash tool, the verify and setup commands, the `claude`
 * process): `bwrap` confines it, `none` runs it as it is (only when the user chose `sandbox.mode: none`).
 */
export interface CommandSandbox {
  readonly kind: 'bwrap' | 'none';
  /**
   * The program to spawn and its arguments for `argv` run in `cwd`, inside the sandbox; `fd3`, when
   * given, is a descriptor the spawner passes as the child's fd 3 and then closes (spawn-sandboxed.ts).
   */
  wrap(argv: readonly string[], cwd: string): { file: string; args: string[]; fd3?: number };
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
  network: 'none' | 'full';
  /**
   * The home inside. An empty tmpfs at the user's home path by default; `binds` shows chosen
   * directories in it (e.g. `~/.claude` for the `claude` process).
   */
  home?: { path?: string; binds?: ReadonlyArray<{ source: string; dest: string }> };
  /**
   * `sandbox.allow_domains`: with no network of its own, the command reaches the listed hosts
   * through the harness's proxy (domain-proxy.ts), at http://127.0.0.1:PROXY_PORT inside.
   */
  proxy?: { socket: string; bridge: string };
}

export interface HostFacts {
  /** bubblewrap's executable. */
  bwrap: string;
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

/** The mounts for one scope, in the order bwrap must apply them. */
/** Node, which runs the proxy's bridge inside. */
function nodeInstallation(): string {
  return installationOf(realpathSync(process.execPath));
}

export function sandboxMounts(scope: SandboxScope, facts: HostFacts): Mount[] {
  const home = sandboxHome(scope.home?.path ?? facts.home);
  const extra = [...(scope.readOnly ?? []), ...(scope.proxy ? [nodeInstallation()] : [])];
  const tools = toolDirectories(facts.path, extra, { home: facts.home });
  return [
    ...systemMounts(),
    { kind: 'tmpfs', dest: '/tmp' },
    { kind: 'tmpfs', dest: home },
    ...tools.map((dir): Mount => ({ kind: 'ro-bind', source: dir, dest: dir })),
    ...(scope.home?.binds ?? []).map((bind): Mount => ({ kind: 'bind', ...bind })),
    ...scope.writable.map((dir): Mount => ({ kind: 'bind', source: dir, dest: dir })),
    ...(scope.extraMounts ?? []),
    ...(scope.proxy
      ? [
          { kind: 'bind', source: scope.proxy.socket, dest: PROXY_SOCKET } as const,
          { kind: 'ro-bind', source: scope.proxy.bridge, dest: BRIDGE_SCRIPT } as const,
        ]
      : []),
  ];
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** Starts the bridge to the proxy, waits until it listens (2 s at most), then becomes the command. */
function behindProxy(argv: readonly string[]): string[] {
  const node = shellQuote(realpathSync(process.execPath));
  const prelude = [
    `${node} ${BRIDGE_SCRIPT} ${PROXY_SOCKET} ${PROXY_PORT} ${BRIDGE_READY} &`,
    `i=0; while [ ! -e ${BRIDGE_READY} ] && [ $i -lt 200 ]; do sleep 0.01; i=$((i+1)); done`,
    'exec "$@"',
  ].join('\n');
  return ['sh', '-c', prelude, 'issueloop-sandbox', ...argv];
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
  NODE_USE_ENV_PROXY: '1',
  npm_config_proxy: PROXY_URL,
  npm_config_https_proxy: PROXY_URL,
});

export function createBwrapSandbox(scope: SandboxScope, facts: HostFacts): CommandSandbox {
  // Computed once per scope: a session runs many commands with the same view.
  const mounts = sandboxMounts(scope, facts);
  const home = sandboxHome(scope.home?.path ?? facts.home);
  return {
    kind: 'bwrap',
    wrap: (argv, cwd) => ({
      file: facts.bwrap,
      args: bwrapArgs({
        mounts,
        network: scope.network,
        cwd,
        argv: scope.proxy ? behindProxy(argv) : argv,
        seccompFd: 3,
      }),
      // A fresh descriptor each time: bwrap reads it to the end.
      fd3: openSync(seccompFilterFile(), 'r'),
    }),
    env: (env) => ({ ...env, HOME: home, TMPDIR: '/tmp', ...(scope.proxy ? PROXY_ENV : {}) }),
  };
}

/** `sandbox.mode: none`: commands run as they are, with the scrubbed environment only. */
export const UNSANDBOXED: CommandSandbox = Object.freeze({
  kind: 'none' as const,
  wrap: (argv: readonly string[]) => ({ file: argv[0] ?? 'bash', args: argv.slice(1) }),
  env: (env: Readonly<Record<string, string>>) => ({ ...env }),
});
