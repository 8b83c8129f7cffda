import type { EngineResult } from '../engines/engine.js';
import { changedFiles, type GitOptions, uncommitAgentWork } from './git/index.js';
import { outcomeOfStop } from './outcome.js';
import type { SessionReport } from './session-report.js';
import type { SessionState } from './session-state.js';
import { failingLine, renderVerifyFailure, runVerify } from './verify.js';
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
  const { config } = state.input;
  const { base, git } = at;
  let result = first;
  for (;;) {
    const stopped = result ? outcomeOfStop(result.stop, result.error) : undefined;
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
    const failed = await checkWork(state, guarded);
    if (failed === undefined || 'outcome' in failed) return failed;
    const left = config.verify.retries - (state.verifyRuns - 1);
    if (left <= 0) {
      state.keep = true;
      return state.report('verify_failed', failed.reason);
    }
    state.input.onPhase?.('working');
    result = await at.turn(failed.fixUp(left - 1));
  }
}

/** Why the work is not done yet, and what the agent's fix-up turn is told (with the turns left). */
interface Unfinished {
  reason: string;
  fixUp(turnsLeft: number): string;
}

/**
 * One check of the work, counted as a verify run: the harness's own check first (conflict markers a
 * merge left), then the verify command. Undefined when it passed (or there is nothing to run), a
 * report when it was interrupted.
 */
async function checkWork(
  state: SessionState,
  guarded: GuardedWorktree,
): Promise<Unfinished | SessionReport | undefined> {
  const { config, signal } = state.input;
  const undone = await state.input.work.unfinished?.(state.worktree);
  if (undone !== undefined) {
    state.verifyRuns += 1;
    state.remember('unfinished', { reason: undone });
    return {
      reason: undone,
      fixUp: (left) => `${undone} Finish it, then end with a summary. ${left} fix-up turn(s) left.`,
    };
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
  // The line that says why goes with it: the next attempt is told it, and so is a person.
  const line = failingLine(verify.output, state.input.redact);
  const how = verify.timedOut ? 'timed out' : `failed (exit ${verify.exitCode ?? 'none'})`;
  return {
    reason: `\`${verify.command}\` ${how}${line ? `: ${line}` : ''}`,
    fixUp: (left) => renderVerifyFailure(verify, left),
  };
}
