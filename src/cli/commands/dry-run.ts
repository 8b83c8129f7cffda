import type { ClaimStore } from '../../claims/claim-store.js';
import type { SpendLedger } from '../../claims/spend-ledger.js';
import { describeWindow, type WindowState } from '../../claims/spend-windows.js';
import type { Config } from '../../config/schema.js';
import type { GitHubAdapter } from '../../github/adapter.js';
import { describeSkip } from '../../scheduler/plan-round.js';
import { latestLedger, readLedger } from '../../session/ledger.js';
import { readBlockers, readTrust } from '../../sources/issues/issue-source.js';
import { readNamedIssues } from '../../sources/issues/named-issues.js';
import { planRound } from '../../sources/issues/plan-issues.js';

export interface DryRunPlan {
  wouldClaim: Array<{ number: number; title: string }>;
  later: Array<{ number: number; title: string }>;
  skipped: Array<{ number: number; title: string; reason: string }>;
  /** Dollars for the issues it would claim: from past sessions' costs when the ledgers have any. */
  estimate: { low: number; high: number; basis: string };
  /** With `budget.*` set: today's and this month's spend windows, shared by every runner. */
  budget?: WindowState[];
}

/** A named issue that cannot be worked (closed, missing…), as the plan shows it: no title, the why. */
function refusal(reason: string): DryRunPlan['skipped'][number] {
  return { number: Number(/^#(\d+)/.exec(reason)?.[1] ?? 0), title: '', reason };
}

async function pastSessionCosts(stateDir: string): Promise<number[]> {
  const file = await latestLedger(stateDir).catch(() => undefined);
  if (!file) return [];
  const { events } = await readLedger(file).catch(() => ({ events: [] }));
  return events
    .filter((e) => e.type === 'outcome' && typeof e.costUsd === 'number')
    .map((e) => e.costUsd as number);
}

/**
 * The next round's plan, read-only: the backlog, the claims and the trust gate are read; nothing is
 * written to GitHub or the state directory (no ledger, no ETag cache flush, no board, no lease).
 */
export async function planDryRun(input: {
  github: GitHubAdapter;
  claims: ClaimStore;
  spend?: SpendLedger;
  config: Config;
  stateDir: string;
  now: number;
  /** `--issue N`: plan these issues, labelled or not, instead of the labelled backlog. */
  issues?: readonly number[];
}): Promise<DryRunPlan> {
  const named = input.issues ? await readNamedIssues(input.github, input.config, input.issues) : undefined;
  const backlog = named
    ? { issues: named.issues, skipped: [], pages: 0, notModified: 0 }
    : await input.github.listBacklog();
  const views = new Map((await input.claims.list()).map((view) => [view.issue, view]));
  const trust = await readTrust({ github: input.github }, backlog, views, input.now);
  const planned = { issues: backlog.issues, claims: views, trust, now: input.now };
  // As a round plans: only the issues it could claim cost a dependency read.
  const blockers = await readBlockers(
    input.github,
    backlog.issues,
    planRound(planned).candidates,
    trust,
    new Set(),
  );
  const plan = planRound({ ...planned, blockers });
  const brief = (issue: { number: number; title: string }) => ({ number: issue.number, title: issue.title });
  const wouldClaim = plan.candidates.slice(0, input.config.workers).map(brief);
  const costs = await pastSessionCosts(input.stateDir);
  const n = wouldClaim.length;
  const estimate =
    costs.length > 0
      ? {
          low: Math.min(...costs) * n,
          high: Math.max(...costs) * n,
          basis: `${costs.length} session(s) of the last run`,
        }
      : {
          low: 0,
          high: input.config.session.max_usd * n,
          basis: 'session.max_usd per session (no past runs)',
        };
  return {
    wouldClaim,
    later: plan.candidates.slice(input.config.workers).map(brief),
    skipped: [
      ...(named?.refused ?? []).map(refusal),
      ...plan.skipped.map((s) => ({ ...brief(s.issue), reason: describeSkip(s.reason) })),
    ],
    estimate,
    ...(input.spend ? { budget: await input.spend.windows() } : {}),
  };
}

export function renderDryRun(plan: DryRunPlan): string {
  const line = (i: { number: number; title: string }) => `  #${i.number} ${i.title}`;
  const lines = [
    'issueloop run --dry-run: the next round (nothing was written)',
    '',
    'would claim, in order:',
  ];
  lines.push(...(plan.wouldClaim.length > 0 ? plan.wouldClaim.map(line) : ['  (nothing)']));
  if (plan.later.length > 0) lines.push('', 'next in line (beyond `workers`):', ...plan.later.map(line));
  if (plan.skipped.length > 0) {
    lines.push('', 'skipped:', ...plan.skipped.map((s) => `${line(s)} — ${s.reason}`));
  }
  const { low, high, basis } = plan.estimate;
  lines.push('', `estimated cost: $${low.toFixed(2)}–$${high.toFixed(2)} (${basis})`);
  if (plan.budget) {
    lines.push('', 'spend caps (shared by every runner on this claim store):');
    lines.push(...plan.budget.map((window) => `  ${describeWindow(window)}`));
  }
  return `${lines.join('\n')}\n`;
}
