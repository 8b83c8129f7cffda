import type { JudgeVerdict } from '../session/judge-attempts.js';
import type { Outcome } from '../session/outcome.js';
import type { SessionReport } from '../session/session-report.js';

/**
 * How close a failed attempt came, best first: the claim of a best-of-N whose attempts all failed
 * ends as its best failure (verify ran and failed beats a budget stop, which beats no change).
 */
const FAILURE_RANK: readonly string[] = ['verify_failed', 'budget_exceeded', 'no_changes', 'refused'];

function rankOf(outcome: Outcome): number {
  const at = FAILURE_RANK.indexOf(outcome);
  if (at >= 0) return at;
  return outcome === 'interrupted' ? FAILURE_RANK.length + 1 : FAILURE_RANK.length;
}

/**
 * The claim's one report from its attempts: the winner's (or, with none, the best failure's; an
 * interrupted run's when it was interrupted), with every attempt's and the judge's cost, calls and
 * tokens, and the claim's wall time. The losers' own reports say `not_chosen`.
 */
export function combineAttempts(
  ran: ReadonlyArray<{ k: number; report: SessionReport }>,
  verdict: JudgeVerdict,
  claim: { issue: number; attempt: number; n: number; durationMs: number; interrupted: boolean },
): { report: SessionReport; attempts: Array<{ k: number; report: SessionReport }>; verdict: JudgeVerdict } {
  const each = ran.map(({ k, report }) => ({
    k,
    report:
      verdict.winner !== undefined && k !== verdict.winner && report.outcome === 'resolved'
        ? notChosen(report, k, verdict)
        : report,
  }));
  const attempts = each.map((a) => a.report);
  const winner = ran.find(({ k }) => k === verdict.winner)?.report;
  const base =
    winner ??
    bestFailure(
      ran.map((r) => r.report),
      claim.interrupted,
    );
  const sum = (pick: (r: SessionReport) => number) => attempts.reduce((total, r) => total + pick(r), 0);
  const models = [
    ...new Set([...attempts.flatMap((r) => r.models ?? []), ...(verdict.model ? [verdict.model] : [])]),
  ];
  const why = winner
    ? `chosen from ${claim.n} attempts: ${verdict.why}`
    : `best of ${claim.n} attempts (${attempts.length} ran): ${verdict.why}`;
  const report: SessionReport = {
    ...(base ?? emptyReport(claim)),
    reason: `${base?.reason ?? 'no attempt ran'}; ${why}`,
    costUsd: sum((r) => r.costUsd) + verdict.costUsd,
    modelCalls: sum((r) => r.modelCalls) + verdict.modelCalls,
    toolCalls: sum((r) => r.toolCalls),
    tokens: sum((r) => r.tokens) + (verdict.usage ? verdict.usage.input + verdict.usage.output : 0),
    verifyRuns: sum((r) => r.verifyRuns),
    durationMs: claim.durationMs,
    models,
    bestOf: {
      n: claim.n,
      ran: each.map(({ k, report: r }) => ({ k, outcome: r.outcome })),
      ...(verdict.winner !== undefined && winner ? { winner: verdict.winner } : {}),
      why: verdict.why,
    },
  };
  return { report, attempts: each, verdict };
}

function notChosen(report: SessionReport, k: number, verdict: JudgeVerdict): SessionReport {
  const { commit: _commit, pr: _pr, ...rest } = report;
  return {
    ...rest,
    outcome: 'not_chosen',
    reason: `attempt ${k} not chosen: attempt ${verdict.winner} was (${verdict.why})`,
  };
}

function bestFailure(reports: readonly SessionReport[], interrupted: boolean): SessionReport | undefined {
  if (interrupted) {
    const stopped = reports.find((r) => r.outcome === 'interrupted');
    if (stopped) return stopped;
  }
  return [...reports].sort((a, b) => rankOf(a.outcome) - rankOf(b.outcome))[0];
}

/** No attempt started (the run was interrupted first): nothing was done, nothing charged. */
function emptyReport(claim: { issue: number; attempt: number; interrupted: boolean }): SessionReport {
  return {
    issue: claim.issue,
    attempt: claim.attempt,
    outcome: claim.interrupted ? 'interrupted' : 'budget_exceeded',
    reason: '',
    filesChanged: [],
    verifyRuns: 0,
    model: '',
    modelCalls: 0,
    toolCalls: 0,
    tokens: 0,
    costUsd: 0,
    durationMs: 0,
    productivity: { score: 0 },
    partialContext: '',
  };
}
