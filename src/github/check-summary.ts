import { cleanCheckName, cleanCheckText } from './check-text.js';
import { type CheckPolicy, type CheckSource, reliesOn } from './relied-checks.js';

export interface FailedCheck {
  /** A check run (GitHub Actions and apps) or a commit status (older integrations). */
  kind: 'check_run' | 'status';
  /** The check run's id, which is also its Actions job id. */
  id?: number;
  /** Cleaned (check-text.ts): no escapes, no hidden text, one line, bounded. */
  name: string;
  conclusion: string;
  /** The check's own title and summary, or the status's description: cleaned and bounded. */
  summary: string;
  detailsUrl?: string;
}

/** A check on the head commit that `pr.ci_checks` does not rely on: never waited for, never worked. */
export interface IgnoredCheck {
  kind: 'check_run' | 'status';
  /** Cleaned like a relied-on check's name. */
  name: string;
  /** The check run's app (its slug), or `status` for a commit status. */
  source: string;
  /** `pending`, or the conclusion (`success`, `failure`, …). */
  state: string;
}

/** The relied-on check runs and statuses of a head commit: `pending` until all have completed. */
export interface CheckSummary {
  state: 'none' | 'pending' | 'failed' | 'passed';
  failed: FailedCheck[];
  pending: string[];
  total: number;
  /** What the policy left out (a foreign app's check, a status from anyone). */
  ignored: IgnoredCheck[];
}

/** Check-run conclusions that fail a PR; success, neutral and skipped pass. */
const FAILING = new Set(['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure', 'stale']);

/** The summary a failing check may show the model: enough to act on, bounded. */
export const MAX_CHECK_SUMMARY = 1_000;

export interface RawCheckRun {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  details_url?: string | null;
  output?: { title?: string | null; summary?: string | null } | null;
  app?: { slug?: string; id?: number } | null;
}

export interface RawStatus {
  context: string;
  state: string;
  description?: string | null;
  target_url?: string | null;
}

/**
 * The checks of a head commit as one verdict, over the checks `policy` relies on (all of them without
 * one). GitHub's combined status says `pending` when there are no statuses at all, so statuses are
 * judged one by one here. Names are matched raw, then cleaned for everyone downstream.
 */
export function summarizeChecks(
  runs: readonly RawCheckRun[],
  statuses: readonly RawStatus[],
  policy?: CheckPolicy,
): CheckSummary {
  const failed: FailedCheck[] = [];
  const pending: string[] = [];
  const ignored: IgnoredCheck[] = [];
  const relied = (check: CheckSource) => policy === undefined || reliesOn(policy, check);
  let total = 0;
  for (const run of runs) {
    if (!relied({ kind: 'check_run', name: run.name, app: run.app ?? null })) {
      const state = run.status === 'completed' ? (run.conclusion ?? 'unknown') : 'pending';
      ignored.push({ kind: 'check_run', name: cleanCheckName(run.name), source: appOf(run), state });
      continue;
    }
    total += 1;
    if (run.status !== 'completed') pending.push(cleanCheckName(run.name));
    else if (run.conclusion !== null && FAILING.has(run.conclusion)) {
      const summary = [run.output?.title, run.output?.summary].filter(Boolean).join(': ');
      failed.push({
        kind: 'check_run',
        id: run.id,
        name: cleanCheckName(run.name),
        conclusion: run.conclusion,
        summary: cleanCheckText(summary, MAX_CHECK_SUMMARY),
        ...(run.details_url ? { detailsUrl: run.details_url } : {}),
      });
    }
  }
  for (const status of statuses) {
    if (!relied({ kind: 'status', name: status.context })) {
      ignored.push({
        kind: 'status',
        name: cleanCheckName(status.context),
        source: 'status',
        state: status.state,
      });
      continue;
    }
    total += 1;
    if (status.state === 'pending') pending.push(cleanCheckName(status.context));
    else if (status.state === 'failure' || status.state === 'error') {
      failed.push({
        kind: 'status',
        name: cleanCheckName(status.context),
        conclusion: status.state,
        summary: cleanCheckText(status.description ?? '', MAX_CHECK_SUMMARY),
        ...(status.target_url ? { detailsUrl: status.target_url } : {}),
      });
    }
  }
  const state =
    total === 0 ? 'none' : pending.length > 0 ? 'pending' : failed.length > 0 ? 'failed' : 'passed';
  return { state, failed, pending, total, ignored };
}

/** A check run's app slug, cleaned (an app names itself). */
function appOf(run: RawCheckRun): string {
  const slug = run.app?.slug;
  return slug ? cleanCheckName(slug) : 'unknown app';
}

/**
 * The newest run of each name in each app's suite (the highest id): read with `filter=all`, so
 * whether GitHub's own `latest` keeps one run per name across apps cannot let another app's passing
 * run of the same name hide a failing one.
 */
export function latestPerApp(runs: readonly RawCheckRun[]): RawCheckRun[] {
  const newest = new Map<string, RawCheckRun>();
  for (const run of runs) {
    const key = `${run.app?.id ?? run.app?.slug ?? ''}\n${run.name}`;
    const known = newest.get(key);
    if (!known || run.id > known.id) newest.set(key, run);
  }
  return runs.filter((run) => newest.get(`${run.app?.id ?? run.app?.slug ?? ''}\n${run.name}`) === run);
}

/** GitHub keeps one status per context, newest first: the newest of each context counts. */
export function latestPerContext(statuses: readonly RawStatus[]): RawStatus[] {
  const seen = new Set<string>();
  return statuses.filter((status) => {
    if (seen.has(status.context)) return false;
    seen.add(status.context);
    return true;
  });
}
