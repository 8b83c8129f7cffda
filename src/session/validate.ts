import type { EngineResult } from '../engines/engine.js';
import { changedFiles, type GitOptions, uncommitAgentWork } from './git/index.js';
import { outcomeOfStop } from './outcome.js';
import type { SessionReport } from './session-report.js';
import type { SessionState } from './session-state.js';
import { renderVerifyFailure, runVerify } from './verify.js';
import type { GuardedWorktree } from './worktree-guard.js';

/**
 * The harness judges the engine's work itself: the engine must have stopped cleanly, changed at least
 * one file (commits the agent made count as changes), and passed the verify command, with fix-up turns
 * while `verify.retries` lasts. Returns the failed attempt's report, or undefined when the work is valid.
 * With no first result the harness made the change itself (a clean merge): it is judged the same way,
 * and a fix-up turn is the agent's first.
 */
export async function validateWork(
  state: SessionState,
  first: EngineResult | undefined,
  guarded: GuardedWorktree,
  at: {
    base: string;
    git: GitOptions;
    turn: (message: string) => Promise<EngineResult>;
    /** A merge under way is a change even when no file differs from the start point. */
    merging?: boolean;
  },
): Promise<SessionReport | undefined> {
  const { config, signal } = state.input;
  const { base, git } = at;
  let result = first;
  for (;;) {
    const stopped = result && outcomeOfStop(result.stop, result.error);
    if (result && stopped) {
      state.keep = true;
      const hint = state.engine?.hint();
      return state.report(stopped, result.reason, hint ? { hint } : {});
    }
    // Nothing the agent could have changed in git is trusted from here on.
    await guarded.reclaim();
    if (await uncommitAgentWork(state.worktree, base, git))
      state.log.info('the agent committed itself; its commits are judged as changes');
    state.filesChanged = (await changedFiles(state.worktree, git)).map((file) => file.path);
    if (state.filesChanged.length === 0 && !at.merging)
      return state.report(
        'no_changes',
        result ? 'the agent finished without changing any file' : 'the harness had nothing to change',
      );
    // The harness's own check of the work (conflict markers a merge left) comes before the command.
    const undone = await state.input.work.unfinished?.(state.worktree);
    if (undone !== undefined) {
      state.verifyRuns += 1;
      const left = config.verify.retries - (state.verifyRuns - 1);
      state.remember('unfinished', { reason: undone });
      if (left <= 0) {
        state.keep = true;
        return state.report('verify_failed', undone);
      }
      state.input.onPhase?.('working');
      result = await at.turn(
        `${undone} Finish it, then end with a summary. ${left - 1} fix-up turn(s) left.`,
      );
      continue;
    }
    if (!config.verify.command) return undefined;
    state.input.onPhase?.('verifying');
    state.verifyRuns += 1;
    const verify = await runVerify(config.verify.command, {
      cwd: state.worktree,
      env: state.scrubbed,
      timeoutMs: config.verify.timeout,
      signal,
      clock: state.input.deps.clock,
      sandbox: guarded.sandboxes.commands,
    });
    state.verify = verify;
    state.remember('verify', {
      passed: verify.passed,
      exitCode: verify.exitCode,
      durationMs: verify.durationMs,
    });
    if (signal.aborted) return state.report('interrupted', 'interrupted while verifying');
    if (verify.passed) return undefined;
    const left = config.verify.retries - (state.verifyRuns - 1);
    if (left <= 0) {
      state.keep = true;
      return state.report(
        'verify_failed',
        `\`${verify.command}\` failed (exit ${verify.exitCode ?? 'none'})`,
      );
    }
    state.input.onPhase?.('working');
    result = await at.turn(renderVerifyFailure(verify, left - 1));
  }
}
