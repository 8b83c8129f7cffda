import type { JudgeVerdict } from '../session/judge-attempts.js';
import type { Ledger } from '../session/ledger.js';
import { runSession } from '../session/run-session.js';
import type { SessionInput, SessionReport } from '../session/session-report.js';
import { plansOnly, runAttempts } from './run-attempts.js';
import type { RunCause } from './run-failure.js';
import type { ItemTracker } from './work-source.js';

/** A claim's attempts (`n`, from the source) and the workers it holds for them (`slots`). */
export interface AttemptsWidth {
  n: number;
  slots: number;
}

/** What a claim's work gave: its report, and with best-of-N each attempt's and the judge's verdict. */
export interface RanWork {
  report: SessionReport;
  attempts?: Array<{ k: number; report: SessionReport }>;
  verdict?: JudgeVerdict;
  /** The attempts the claim was given (some may not have started: `attempts.max_usd`). */
  n?: number;
}

/** One session, or `width.n` attempts and a judge (run-attempts.ts). */
export async function runWork(width: AttemptsWidth, input: SessionInput): Promise<RanWork> {
  if (width.n <= 1 || (await plansOnly(input))) return { report: await runSession(input) };
  return { ...(await runAttempts({ ...input, n: width.n, slots: width.slots })), n: width.n };
}

/**
 * What the claim's work cost and did, kept before anything else: each attempt's report as a session
 * of the item (the source's outcome record), the judge's call, and an `attempts` ledger event.
 */
export async function recordWork(
  ctx: { ledger: Ledger },
  tracker: ItemTracker,
  ran: RanWork,
  paused: RunCause | undefined,
): Promise<void> {
  if (!ran.attempts || !ran.verdict) {
    await tracker.sessionEnded?.(ran.report, paused);
    return;
  }
  const { verdict } = ran;
  for (const attempt of ran.attempts) await tracker.sessionEnded?.(attempt.report, paused);
  if (verdict.modelCalls > 0 && verdict.model) {
    await tracker.judged?.({
      costUsd: verdict.costUsd,
      model: verdict.model,
      ...(verdict.usage ? { usage: verdict.usage } : {}),
    });
  }
  await ctx.ledger.append('attempts', {
    issue: ran.report.issue,
    n: ran.n ?? ran.attempts.length,
    attempts: ran.attempts.map(({ k, report }) => ({
      attempt: k,
      outcome: report.outcome,
      costUsd: report.costUsd,
    })),
    ...(verdict.winner !== undefined ? { winner: verdict.winner } : {}),
    why: verdict.why,
    judgeUsd: verdict.costUsd,
    costUsd: ran.report.costUsd,
  });
}
