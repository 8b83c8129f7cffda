import { realpath } from 'node:fs/promises';
import { secretValues } from '../agent/tools/scrub-env.js';
import type { Log } from '../core/logger.js';
import type { SandboxHost, WorktreeSandboxes } from '../sandbox/sandbox-host.js';
import { assertGitUntouched, snapshotGitState } from './git/git-state.js';
import { removeNestedGitDirs } from './git/nested-repos.js';
import { type GitOptions, runGit } from './git/run-git.js';
import { stagedDiff } from './git/staged-diff.js';
import { inWorktree, pinHead, worktreeGitDirs, writeAgentGitDir } from './git/worktree-view.js';
import { type ChangeBases, describeProtected, protectedChanges } from './protected-paths.js';
import { describeHits, findSecrets } from './secret-scan.js';

export interface GuardedWorktree {
  /** The worktree's real path. */
  worktree: string;
  /** The harness's git in the worktree (explicit GIT_DIR, never the worktree's `.git` file). */
  git: GitOptions;
  /** Where the agent's commands run. */
  sandboxes: WorktreeSandboxes;
  /**
   * Before the harness's git runs after the agent: the shared git is as it was (else
   * GitTamperedError), HEAD is back on the session's branch, no MERGE_HEAD is left, nested
   * repositories are gone.
   */
  reclaim(): Promise<void>;
  /** Why the change may not be committed (a secret in what it adds), or undefined. */
  secretsInDiff(base: string): Promise<string | undefined>;
  /** Why the change may not be delivered (it touches `protected_paths`), with the paths, or undefined. */
  protectedInDiff(bases: ChangeBases): Promise<{ reason: string; paths: string[] } | undefined>;
}

/**
 * A fresh worktree made ready for the agent, while everything in it is still the harness's: its git
 * dirs read, the agent's private git dir made (sandbox.mode: os), the shared git's state snapshot
 * taken, and the sandboxes built over it.
 */
export async function guardWorktree(input: {
  path: string;
  branch: string;
  agentGitDir: string;
  git: GitOptions;
  sandbox: SandboxHost;
  env: Readonly<Record<string, string | undefined>>;
  redactEnv: readonly string[];
  protectedPaths: readonly string[];
  log: Log;
  remember: (type: string, fields: Record<string, unknown>) => void;
  /** The base branch's top-level names, for setup's registries (WorktreeView.setupBase). */
  setupBase?: readonly string[];
}): Promise<GuardedWorktree> {
  const worktree = await realpath(input.path);
  const dirs = await worktreeGitDirs(worktree, input.git);
  const git = inWorktree(input.git, dirs, worktree);
  if (input.sandbox.mode === 'os') await writeAgentGitDir(dirs, input.branch, input.agentGitDir, input.git);
  const before = await snapshotGitState(dirs);
  const view = {
    worktree,
    git: dirs,
    agentGitDir: input.agentGitDir,
    log: input.log,
    ...(input.setupBase ? { setupBase: input.setupBase } : {}),
  };
  return {
    worktree,
    git,
    sandboxes: await input.sandbox.forWorktree(view),
    async reclaim() {
      await assertGitUntouched(dirs, before);
      await pinHead(worktree, input.branch, git);
      // The harness owns a merge's second parent (commitAll's mergeParent): a MERGE_HEAD here is
      // a merge the agent started or wrote, whose parent would be pushed unscanned.
      await runGit(['update-ref', '-d', 'MERGE_HEAD'], { ...git, cwd: worktree });
      const removed = await removeNestedGitDirs(worktree);
      if (removed.length === 0) return;
      input.log.warn(
        { paths: removed },
        `removed ${removed.length} nested git repositories the agent left in the worktree`,
      );
      input.remember('nested_git_removed', { paths: removed });
    },
    async secretsInDiff(base) {
      const diff = await stagedDiff(worktree, base, git);
      const hits = findSecrets(diff, secretValues(input.env, input.redactEnv));
      if (hits.length === 0) return undefined;
      const reason = describeHits(hits);
      input.log.error({ hits: hits.length }, reason);
      input.remember('secret_in_diff', { files: [...new Set(hits.map((h) => h.file))] });
      return reason;
    },
    async protectedInDiff(bases) {
      const paths = await protectedChanges(worktree, bases, input.protectedPaths, git);
      if (paths.length === 0) return undefined;
      const reason = describeProtected(paths);
      input.log.error({ paths: paths.length }, reason);
      // Bounded: the names are the agent's, and so is their number.
      input.remember('protected_paths', {
        count: paths.length,
        paths: paths.slice(0, 20).map((p) => p.slice(0, 300)),
      });
      return { reason, paths };
    },
  };
}
