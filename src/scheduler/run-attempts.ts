import { type AttemptDirections, loadDirections, renderDirection } from '../agent/attempt-directions.js';
import { scrubEnv } from '../agent/tools/scrub-env.js';
import { deleteLocalBranch } from '../session/git/branch-tip.js';
import { GitTamperedError } from '../session/git/git-state.js';
import { stagedDiff } from '../session/git/staged-diff.js';
import {
  type AttemptCandidate,
  type JudgeVerdict,
  judgeAttempts,
  linesChangedIn,
  smallerDiff,
} from '../session/judge-attempts.js';
import { runSession } from '../session/run-session.js';
import type { SessionInput, SessionReport } from '../session/session-report.js';
import type { Delivered, DeliveryInput, SessionWork } from '../session/session-work.js';
import { createAttemptGate } from './attempt-gate.js';
import { combineAttempts } from './combine-attempts.js';

/** What a claim's session input is, minus the work: each attempt gets its own. */
export type AttemptsInput = Omit<SessionInput, 'work'> & {
  work: SessionWork;
  /** Attempts to run (`attempts.n`), and the worker slots the claim holds for them. */
  n: number;
  slots: number;
};

export interface AttemptsResult {
  /** The claim's report: the winner's (or the best failure's), with every attempt's cost and the judge's. */
  report: SessionReport;
  /** Each attempt that ran (`k` of `n`), in order: the losers `not_chosen`. */
  attempts: Array<{ k: number; report: SessionReport }>;
  verdict: JudgeVerdict;
}

/**
 * Best-of-N: up to `n` whole sessions on one claim, each in its own worktree on its own local branch
 * (`issueloop/issue-<n>-a<k>`), side by side in the claim's slots. An attempt that validates hands
 * its work to the judge instead of delivering it; once every attempt has ended or handed over, the
 * judge picks one, which delivers as a single session would (the issue's branch, its PR); the others
 * end `not_chosen`, nothing pushed.
 */
export async function runAttempts(input: AttemptsInput): Promise<AttemptsResult> {
  const { work, n } = input;
  const ctx = input;
  const { attempts: settings, session } = ctx.config;
  const gate = createAttemptGate({
    slots: input.slots,
    sessionMaxUsd: session.max_usd,
    ...(settings.max_usd !== undefined ? { maxUsd: settings.max_usd } : {}),
    signal: input.signal,
  });
  const started = ctx.deps.clock.now();
  const directions = await attemptDirections(input);
  const candidates: AttemptCandidate[] = [];
  let pending = n;
  let decide: (verdict: JudgeVerdict) => void = () => undefined;
  const decided = new Promise<JudgeVerdict>((resolve) => {
    decide = resolve;
  });
  let verdict: JudgeVerdict = { why: 'no attempt reached the judge', costUsd: 0, modelCalls: 0 };
  /** Every attempt has ended or handed over: the judge decides, and whoever waits hears it. */
  const settleOne = async () => {
    pending -= 1;
    if (pending > 0) return;
    verdict = await judge(input, candidates);
    decide(verdict);
  };

  const runOne = async (k: number): Promise<SessionReport | undefined> => {
    const cap = await gate.start();
    if (cap === undefined) {
      await settleOne();
      return undefined;
    }
    let handedOver = false;
    let from = '';
    const attemptWork: SessionWork = {
      ...work,
      branch: `${work.branch}-a${k}`,
      worktreeName: `${work.worktreeName}-a${k}`,
      // Attempts that start alike explore alike: each ends its first message with its own direction.
      firstMessage: (resume) => {
        const message = work.firstMessage(resume);
        return directions ? `${message}\n\n${renderDirection(directions, k, n)}` : message;
      },
      startPoint: async (git) => {
        from = await work.startPoint(git);
        return from;
      },
      deliver: async (delivery: DeliveryInput, git): Promise<Delivered> => {
        const diff = await stagedDiff(delivery.worktree, from, git);
        candidates.push({
          attempt: k,
          // Delivery comes only after the harness validated the work: verify passed, or none is set.
          verified: delivery.verify?.passed ?? true,
          diff,
          linesChanged: linesChangedIn(diff),
        });
        handedOver = true;
        gate.settle(cap, delivery.costUsd);
        gate.freeSlot();
        void settleOne();
        const chosen = await untilDecided(decided, input.signal);
        // Without a winner nothing is delivered, and an attempt that handed over is not `resolved`.
        if (chosen.winner === undefined) throw new Error(`no attempt was chosen (${chosen.why})`);
        if (chosen.winner !== k) {
          return { commit: '', reason: `not chosen: attempt ${chosen.winner ?? 'none'} was (${chosen.why})` };
        }
        // What is committed is what was scanned and judged: the worktree waited, and nothing may
        // have changed it since (a sibling attempt's agent, a process the scan did not see).
        if ((await stagedDiff(delivery.worktree, from, git)) !== diff) {
          throw new ChangedWhileJudged(k);
        }
        const totalUsd = gate.spent + chosen.costUsd;
        return work.deliver({ ...delivery, chosen: { from: n, why: chosen.why, totalUsd } }, git);
      },
    };
    let spent = 0;
    try {
      const report = await runSession({
        ...input,
        work: attemptWork,
        config: { ...input.config, session: { ...input.config.session, max_usd: cap } },
        deps: { ...input.deps, log: input.deps.log.child({ try: k, of: n }) },
      });
      spent = report.costUsd;
      return report;
    } finally {
      // Out of the running (a failure, or a harness that threw): the others must not wait for it.
      if (!handedOver) {
        gate.settle(cap, spent);
        gate.freeSlot();
        await settleOne();
      }
    }
  };

  const ran = await Promise.all(Array.from({ length: n }, (_, i) => runOne(i + 1)));
  await dropAttemptBranches(input, ran);
  const reports = ran.flatMap((report, i) => (report ? [{ k: i + 1, report }] : []));
  return combineAttempts(reports, verdict, {
    issue: work.key,
    attempt: input.attempt,
    n,
    durationMs: ctx.deps.clock.now() - started,
    interrupted: input.signal.aborted,
  });
}

/**
 * The judge's verdict over the candidates; never throws, so the attempts waiting always hear one.
 * Interrupted: no attempt is delivered, so none is named the winner (the ledger, the reason).
 */
async function judge(input: AttemptsInput, candidates: readonly AttemptCandidate[]): Promise<JudgeVerdict> {
  if (input.signal.aborted) return { why: 'interrupted before the judge decided', costUsd: 0, modelCalls: 0 };
  const { config } = input;
  try {
    return await judgeAttempts(candidates, {
      callModel: input.models.call,
      model: config.attempts.judge_model ?? config.model.diagnosis_model,
      issue: input.work.firstMessage(undefined),
      redact: input.redact,
      signal: input.signal,
    });
  } catch (err) {
    // Whatever the judge throws, even before its first await.
    return judgeFailed(candidates, err, input.signal, input.redact);
  }
}

/**
 * A judge that threw: stopped by an interrupt (nothing is delivered), or broken (its prompt
 * unreadable): then, as when its model call fails, the smaller verified diff wins.
 */
function judgeFailed(
  candidates: readonly AttemptCandidate[],
  err: unknown,
  signal: AbortSignal,
  redact: (text: string) => string,
): JudgeVerdict {
  const message = redact((err as Error).message ?? String(err))
    .replace(/\s+/g, ' ')
    .slice(0, 200);
  const verified = candidates.filter((c) => c.verified);
  if (signal.aborted || verified.length === 0) {
    return { why: `the judge was stopped: ${message}`, costUsd: 0, modelCalls: 0 };
  }
  const smallest = smallerDiff(verified);
  return {
    winner: smallest.attempt,
    why: `the smaller diff (${smallest.linesChanged} lines changed; the judge failed: ${message})`,
    costUsd: 0,
    modelCalls: 0,
  };
}

/** The chosen attempt's worktree no longer holds what was scanned and judged: it ends `refused`. */
class ChangedWhileJudged extends GitTamperedError {
  constructor(k: number) {
    super([`attempt ${k}'s worktree`]);
    this.message = `attempt ${k}'s worktree changed after its checks, while it waited for the judge; nothing was committed or pushed`;
  }
}

/**
 * Whether the claim's work turns out to be a plan session once its start point is known (an issue
 * that failed verify and was then labelled `issueloop:plan`, or asked for a plan): a plan is written
 * once, never by N attempts side by side. A start point that cannot be read is the session's to report.
 */
export async function plansOnly(input: Pick<AttemptsInput, 'work' | 'env' | 'config' | 'redact' | 'signal'>) {
  const { work } = input;
  if (!work.planOnly) return false;
  try {
    await work.startPoint({
      env: scrubEnv(input.env, input.config.redact_env),
      signal: input.signal,
      redact: input.redact,
    });
  } catch {
    return false;
  }
  return work.planOnly() !== undefined;
}

/**
 * The attempts' local branches deleted once their worktrees are gone: only the issue's branch on
 * origin carries the winner (a worktree kept for inspection keeps its branch).
 */
async function dropAttemptBranches(input: AttemptsInput, ran: ReadonlyArray<SessionReport | undefined>) {
  const quiet = { env: scrubEnv(input.env, input.config.redact_env), redact: input.redact };
  for (const [i, report] of ran.entries()) {
    if (report === undefined) continue;
    const branch = `${input.work.branch}-a${i + 1}`;
    if (!(await deleteLocalBranch(input.checkout, branch, quiet))) {
      input.deps.log.debug({ branch }, 'attempt branch kept (its worktree is kept, or it is gone)');
    }
  }
}

/** The directions file; a broken one is logged, and the attempts run without directions. */
async function attemptDirections(input: AttemptsInput): Promise<AttemptDirections | undefined> {
  try {
    return await loadDirections();
  } catch (err) {
    input.deps.log.warn({ err: (err as Error).message }, 'attempts run without directions');
    return undefined;
  }
}

/** The judge's verdict, or a throw when the run is interrupted first (the attempt ends `interrupted`). */
function untilDecided(decided: Promise<JudgeVerdict>, signal: AbortSignal): Promise<JudgeVerdict> {
  if (signal.aborted) return Promise.reject(new Error('interrupted'));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('interrupted'));
    signal.addEventListener('abort', onAbort, { once: true });
    decided.then((verdict) => {
      signal.removeEventListener('abort', onAbort);
      resolve(verdict);
    }, reject);
  });
}
