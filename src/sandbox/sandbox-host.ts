import { basename, dirname, join } from 'node:path';
import type { Log } from '../core/logger.js';
import { type BlockedRequest, createBlockedTally } from './blocked-requests.js';
import type { Mount } from './bwrap-args.js';
import type { EgressNetwork, EgressPolicy } from './domain-proxy.js';
import { WEB_PORTS } from './egress-rules.js';
import { gitViewMounts, type WorktreeGitDirs } from './git-view.js';
import type { NetHolder } from './net-holder.js';
import { type CommandSandbox, createBwrapSandbox, type HostFacts, UNSANDBOXED } from './sandbox.js';
import { openSessionNetwork } from './session-network.js';
import { setupHosts } from './setup-registries.js';

export interface SandboxSettings {
  /** `os`: bubblewrap (Linux); `none`: the user chose to run the agent's commands unconfined. */
  mode: 'os' | 'none';
  /** The agent's commands and verify: `none` reach `allow_domains` only; `full` any public host. */
  network: 'none' | 'full';
  /** More directories shown read-only (a toolchain outside PATH). */
  read_only: readonly string[];
  /** Hosts every role may reach through the session's egress proxy. */
  allow_domains?: readonly string[];
  /** `session.setup`'s hosts: presets, `auto`, hosts (setup-registries.ts); `[auto]` by default. */
  setup_domains?: readonly string[];
  /** Ports besides 80 and 443 a destination may be reached on. */
  allow_ports?: readonly number[];
}

export interface SandboxHostOptions {
  /** Where refused destinations are logged (once each per session) when the view brings no log. */
  log?: Log;
  /** How the egress proxies resolve and connect (tests: documentation addresses mapped to loopback). */
  network?: EgressNetwork;
  /** Hidden from every session besides its own checkout and worktrees: the state directory. */
  protect?: readonly string[];
  /** Files no sandbox may read, wherever a shown directory holds them: the GitHub App's key file. */
  hide?: readonly string[];
}

/** A worktree as the harness prepared it before the agent started: its git dirs and the agent's own. */
export interface WorktreeView {
  worktree: string;
  git: WorktreeGitDirs;
  /** The private git dir the sandbox shows at the worktree's admin directory (see git-view.ts). */
  agentGitDir: string;
  /** The session's log, for the refused destinations. */
  log?: Log;
  /**
   * The top-level names of the base branch's revision the session works from, where
   * `sandbox.setup_domains: [auto]` detects the registries: never the worktree, which a follow-up's
   * agent wrote (a `Cargo.toml` it added would open crates.io to setup). None given, none detected.
   */
  setupBase?: readonly string[];
}

export interface ClaudeScope {
  /** The home path inside (the user's, as Claude Code's session files name it). */
  home: string;
  /** Shown writable in the otherwise empty home: `~/.claude`, where Claude Code keeps its login and sessions. */
  homeBinds: ReadonlyArray<{ source: string; dest: string }>;
  /** Read-only: the installation of the `claude` executable when it is not on PATH. */
  readOnly: readonly string[];
  /**
   * The session's model-credential proxy (model-proxy.ts), a Unix socket on the host: the sandbox
   * shows it at http://127.0.0.1:MODEL_PORT, where ANTHROPIC_BASE_URL points.
   */
  modelSocket?: string;
}

/** The sandboxes of one session, all over the same worktree. */
export interface WorktreeSandboxes {
  /** The agent's bash tool and the verify command. */
  commands: CommandSandbox;
  /**
   * `session.setup` (e.g. `npm ci`): its package registries, never a secret. Starts the role's
   * network on the first call: a session without setup pays nothing for it.
   */
  setup(): Promise<CommandSandbox>;
  /**
   * The `claude` process: the model through MODEL_PORT, `allow_domains`, the given directories of
   * its home, its program. Starts the role's network on the first call.
   */
  claude(options: ClaudeScope): Promise<CommandSandbox>;
  /** What the session's egress proxy refused so far, for the report, the PR body and the ledger. */
  blocked(): BlockedRequest[];
  /** Refusals counted in none of `blocked()`'s destinations (past MAX_BLOCKED_DESTINATIONS). */
  blockedOthers?(): number;
  /** Stops what the session's sandboxes keep running for it; called once, when the session ends. */
  close(): Promise<void>;
}

export interface SandboxHost {
  readonly mode: 'os' | 'none';
  /** The session's sandboxes, the commands' network namespace started (setup's and claude's on first use). */
  forWorktree(view: WorktreeView): Promise<WorktreeSandboxes>;
}

const NONE: WorktreeSandboxes = Object.freeze({
  commands: UNSANDBOXED,
  setup: async () => UNSANDBOXED,
  claude: async () => UNSANDBOXED,
  blocked: () => [],
  blockedOthers: () => 0,
  close: async () => undefined,
});

/** `sandbox.mode: none`: every command runs as it is, with the scrubbed environment only. */
export const UNSANDBOXED_HOST: SandboxHost = Object.freeze({
  mode: 'none' as const,
  forWorktree: async () => NONE,
});

/** The egress allowlist of each role (README, "Security model"). */
export function rolePolicies(
  settings: SandboxSettings,
  setupBase: readonly string[] = [],
): { commands: EgressPolicy; setup: EgressPolicy; claude: EgressPolicy } {
  const ports = new Set([...WEB_PORTS, ...(settings.allow_ports ?? [])]);
  const allow = settings.allow_domains ?? [];
  const setup = setupHosts(settings.setup_domains ?? ['auto'], allow, () => setupBase);
  return {
    commands: { hosts: settings.network === 'full' ? 'any' : allow, ports },
    setup: { hosts: setup, ports },
    claude: { hosts: allow, ports },
  };
}

/**
 * bubblewrap around everything the agent runs, each role of a session in a network namespace of its
 * own whose one way out is the role's egress proxy; `facts` come from a probe that passed (probe.ts).
 */
export function createSandboxHost(
  settings: SandboxSettings,
  facts: HostFacts,
  options: SandboxHostOptions = {},
): SandboxHost {
  if (settings.mode === 'none') return UNSANDBOXED_HOST;
  return {
    mode: 'os',
    async forWorktree(view) {
      const extraMounts: Mount[] = gitViewMounts(view.git, view.agentGitDir);
      const log = view.log ?? options.log;
      const protect = [...hiddenPaths(view), ...(options.protect ?? [])];
      const hide = options.hide ?? [];
      const scope = {
        writable: [view.worktree],
        readOnly: settings.read_only,
        extraMounts,
        protect,
        log,
        hide,
      };
      const tally = createBlockedTally();
      const network = openSessionNetwork({
        facts,
        tally,
        log,
        network: options.network,
      });
      const policies = rolePolicies(settings, view.setupBase);
      try {
        const commands = await network.open('commands', policies.commands);
        let setup: Promise<CommandSandbox> | undefined;
        const reaches = (policy: EgressPolicy) => policy.hosts === 'any' || policy.hosts.length > 0;
        // One claude namespace per session and model socket, however often the engine asks.
        const claudeNets = new Map<string, Promise<NetHolder>>();
        const claudeNet = (modelSocket: string | undefined) => {
          const key = modelSocket ?? '';
          const known = claudeNets.get(key);
          if (known) return known;
          const started = network.open('claude', policies.claude, modelSocket);
          claudeNets.set(key, started);
          return started;
        };
        return {
          commands: createBwrapSandbox(
            { ...scope, net: commands, nodeUsesProxy: reaches(policies.commands) },
            facts,
          ),
          setup() {
            setup ??= network
              .open('setup', policies.setup)
              .then((net) =>
                createBwrapSandbox({ ...scope, net, nodeUsesProxy: reaches(policies.setup) }, facts),
              );
            return setup;
          },
          async claude({ home, homeBinds, readOnly, modelSocket }) {
            const net = await claudeNet(modelSocket);
            const readOnlyDirs = [...settings.read_only, ...readOnly];
            const nodeUsesProxy = reaches(policies.claude);
            const claudeScope = { ...scope, readOnly: readOnlyDirs, net, nodeUsesProxy };
            return createBwrapSandbox({ ...claudeScope, home: { path: home, binds: homeBinds } }, facts);
          },
          blocked: (): BlockedRequest[] => tally.list(),
          blockedOthers: () => tally.others(),
          close: () => network.close(),
        };
      } catch (err) {
        await network.close();
        throw err;
      }
    },
  };
}

/** What no PATH directory shown may be, hold or lie in: the checkout, the worktree, the worktrees. */
function hiddenPaths(view: WorktreeView): string[] {
  const checkout = basename(view.git.common) === '.git' ? dirname(view.git.common) : view.git.common;
  return [checkout, view.git.common, view.worktree, dirname(view.agentGitDir)];
}

/** Where the agent's private git dir of a worktree is made: beside the worktree, never inside it. */
export function agentGitDirPath(worktreesDir: string, worktreeName: string): string {
  return join(worktreesDir, `.${worktreeName}.git`);
}
