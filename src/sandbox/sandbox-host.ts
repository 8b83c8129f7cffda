import { join } from 'node:path';
import type { BlockedRequest } from './blocked-requests.js';
import type { Mount } from './bwrap-args.js';
import { gitViewMounts, type WorktreeGitDirs } from './git-view.js';
import { type CommandSandbox, createBwrapSandbox, type HostFacts, UNSANDBOXED } from './sandbox.js';

export interface SandboxSettings {
  /** `os`: bubblewrap (Linux); `none`: the user chose to run the agent's commands unconfined. */
  mode: 'os' | 'none';
  /** The agent's commands and verify: `none` (loopback only) unless `full`. */
  network: 'none' | 'full';
  /** More directories shown read-only (a toolchain outside PATH). */
  read_only: readonly string[];
  /** With `network: none`, the hosts the commands may still reach, through the harness's proxy. */
  allow_domains?: readonly string[];
}

/** A worktree as the harness prepared it before the agent started: its git dirs and the agent's own. */
export interface WorktreeView {
  worktree: string;
  git: WorktreeGitDirs;
  /** The private git dir the sandbox shows at the worktree's admin directory (see git-view.ts). */
  agentGitDir: string;
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
  /** `session.setup` (e.g. `npm ci`): the network, never a secret. */
  setup: CommandSandbox;
  /** The `claude` process: the network for the model API, the given directories of its home, its program. */
  claude(options: ClaudeScope): CommandSandbox;
  /** What the session's egress proxy refused so far, for the report, the PR body and the ledger. */
  blocked(): BlockedRequest[];
  /** Stops what the session's sandboxes keep running for it; called once, when the session ends. */
  close(): Promise<void>;
}

export interface SandboxHost {
  readonly mode: 'os' | 'none';
  forWorktree(view: WorktreeView): WorktreeSandboxes;
}

const NONE: WorktreeSandboxes = Object.freeze({
  commands: UNSANDBOXED,
  setup: UNSANDBOXED,
  claude: () => UNSANDBOXED,
  blocked: () => [],
  close: async () => undefined,
});

/** `sandbox.mode: none`: every command runs as it is, with the scrubbed environment only. */
export const UNSANDBOXED_HOST: SandboxHost = Object.freeze({
  mode: 'none' as const,
  forWorktree: () => NONE,
});

/** bubblewrap around everything the agent runs; `facts` come from a probe that passed (probe.ts). */
export function createSandboxHost(
  settings: SandboxSettings,
  facts: HostFacts,
  proxy?: { socket: string; bridge: string },
): SandboxHost {
  if (settings.mode === 'none') return UNSANDBOXED_HOST;
  return {
    mode: 'os',
    forWorktree(view) {
      const extraMounts: Mount[] = gitViewMounts(view.git, view.agentGitDir);
      const scope = (network: 'none' | 'full') => ({
        writable: [view.worktree],
        readOnly: settings.read_only,
        extraMounts,
        network,
      });
      const viaProxy = settings.network === 'none' && proxy ? { proxy } : {};
      return {
        commands: createBwrapSandbox({ ...scope(settings.network), ...viaProxy }, facts),
        setup: createBwrapSandbox(scope('full'), facts),
        claude: ({ home, homeBinds, readOnly }) =>
          createBwrapSandbox(
            {
              ...scope('full'),
              readOnly: [...settings.read_only, ...readOnly],
              home: { path: home, binds: homeBinds },
            },
            facts,
          ),
        blocked: () => [],
        close: async () => undefined,
      };
    },
  };
}

/** Where the agent's private git dir of a worktree is made: beside the worktree, never inside it. */
export function agentGitDirPath(worktreesDir: string, worktreeName: string): string {
  return join(worktreesDir, `.${worktreeName}.git`);
}
