import type { ClaimView } from '../../claims/claim-store.js';
import type { Config } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import type { GitHubAdapter } from '../../github/adapter.js';
import type { Backlog } from '../../github/backlog.js';
import type { BoardPhase } from '../../github/board/board-state.js';
import type { BacklogIssue } from '../../github/issue-shape.js';
import { IN_PROGRESS_LABEL, NEEDS_HUMAN_LABEL } from '../../github/labels.js';
import {
  emptyTrackingRecord,
  type TrackingPhase,
  type TrackingRecord,
} from '../../github/tracking-comment.js';
import type { TrustDecision } from '../../github/trust.js';
import type { ItemTracker, TrackerInput, WorkSource } from '../../scheduler/work-source.js';
import type { RemoteRef } from '../../session/git/remote.js';
import { isFailure } from '../../session/outcome.js';
import { importCandidateHistory } from './history.js';
import { issueWork } from './issue-work.js';
import { planRound } from './plan-issues.js';

export interface IssueSourceOptions {
  github: GitHubAdapter;
  config: Config;
  redact: Redactor;
  checkout: string;
  /** Resolved once at the start of the run (name, URL, the push's credentials). */
  remote: RemoteRef;
  baseBranch: string;
  log: Log;
  /** `sleep` holds back a tracking-comment edit that the next one would replace within a second. */
  clock: Pick<Clock, 'now' | 'sleep'>;
}

/**
 * Trust for the issues a round could claim (leased, needs-human and resolved ones cost nothing): the
 * label gate per issue, then one GraphQL query for the body edits of those a label vouched for.
 */
export async function readTrust(
  ctx: Pick<IssueSourceOptions, 'github'>,
  backlog: Backlog,
  claims: ReadonlyMap<number, ClaimView>,
  now: number,
): Promise<Map<number, TrustDecision>> {
  const open = backlog.issues.filter((issue) => {
    const claim = claims.get(issue.number);
    // Leased and needs-human issues are skipped anyway: their trust costs requests for nothing.
    if (claim?.needs_human || claim?.last_outcome === 'resolved') return false;
    return !(claim?.lease && Date.parse(claim.lease.expires_at) > now);
  });
  return ctx.github.trustGate().checkAll(open);
}

/**
 * GitHub issues as the backlog: the labelled open issues (ETag-cached), the trust gate, history from
 * tracking comments for a runner with an empty state directory, and a session that ends as a draft
 * PR; the board, the in-progress and needs-human labels and the tracking comment follow each phase.
 */
export function createIssueSource(options: IssueSourceOptions): WorkSource<BacklogIssue> {
  const { github, config } = options;
  /** Issues whose tracking comment was read this run: their history is known. */
  const historyChecked = new Set<number>();
  /** The untrusted reasons already in the ledger, so a reason is recorded once, not every round. */
  const untrustedLogged = new Map<number, string>();

  return {
    list: async () => (await github.listBacklog()).issues,

    async plan(issues, initial, round) {
      const backlog = { issues: [...issues] } as Backlog;
      let claims = initial;
      const trust = await readTrust(options, backlog, claims, round.now);
      for (const [issue, decision] of trust) {
        if (decision.trusted || untrustedLogged.get(issue) === decision.reason) continue;
        untrustedLogged.set(issue, decision.reason);
        await round.ledger.append('untrusted', { round: round.round, issue, reason: decision.reason });
      }
      let plan = planRound({ issues, claims, trust, now: round.now });
      const unread = new Set<number>();
      // Imported history can only add records, so the trust read above still covers every candidate.
      for (;;) {
        const history = { ...options, claims: round.store, log: round.log };
        const candidates = plan.candidates.filter((issue) => !unread.has(issue.number));
        const found = await importCandidateHistory(
          history,
          candidates,
          claims,
          historyChecked,
          config.workers,
        );
        for (const issue of found.unread) unread.add(issue);
        if (found.imported.length === 0 && found.unread.length === 0) break;
        if (found.imported.length > 0) {
          await round.ledger.append('history_import', { round: round.round, issues: found.imported });
          claims = new Map((await round.store.list()).map((view) => [view.issue, view]));
          plan = planRound({ issues, claims, trust, now: round.now });
        }
      }
      const known = claims;
      return {
        ...plan,
        claims: known,
        // Only issues whose history is known: the store's own, or the comment's read this run.
        claimable: (issue) => known.has(issue.number) || historyChecked.has(issue.number),
      };
    },

    session: (issue) => issueWork(issue, options),

    track: (issue, input) => trackIssue(options, issue, input),

    async afterRound(log) {
      await github.board?.retryPending().catch(() => undefined);
      await github
        .flush()
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'could not save the ETag cache'));
    },
  };
}

/** Board and tracking comment never fail a session: their errors are logged and the work goes on. */
async function quietly(
  options: Pick<IssueSourceOptions, 'redact'>,
  log: Log,
  what: string,
  work: () => Promise<unknown>,
): Promise<void> {
  try {
    await work();
  } catch (err) {
    log.warn({ err: options.redact((err as Error).message) }, `${what} failed; continuing`);
  }
}

/** A tracking-comment edit followed by the next one within this long is left out (GitHub paces writes). */
const COALESCE_MS = 1_000;

/**
 * The in-progress label. With a board, its In Progress column says the same, and the label's two
 * paced writes per issue are saved; one left by an earlier run without a board is still taken off.
 */
function inProgressLabel(
  github: IssueSourceOptions['github'],
  issue: BacklogIssue,
  quiet: (what: string, work: () => Promise<unknown>) => Promise<void>,
) {
  const labelled = !github.board;
  const unlabel = labelled || issue.labels.includes(IN_PROGRESS_LABEL);
  return {
    add: () =>
      labelled
        ? quiet('in-progress label', async () => {
            await github.labels.ensureLabel(IN_PROGRESS_LABEL);
            await github.labels.addLabels(issue.number, [IN_PROGRESS_LABEL]);
          })
        : Promise.resolve(),
    remove: () =>
      unlabel
        ? quiet('in-progress label', () => github.labels.removeLabel(issue.number, IN_PROGRESS_LABEL))
        : Promise.resolve(),
  };
}

/** An edit made only if no other one comes within COALESCE_MS. */
function coalesced(clock: Pick<Clock, 'sleep'>, edit: () => Promise<unknown>) {
  let wait: AbortController | undefined;
  return {
    start() {
      wait?.abort();
      const own = new AbortController();
      wait = own;
      clock.sleep(COALESCE_MS, own.signal).then(edit, () => undefined);
    },
    cancel: () => wait?.abort(),
  };
}

/** The tracking comment, the labels and the board, following one issue's session. */
function trackIssue(options: IssueSourceOptions, issue: BacklogIssue, input: TrackerInput): ItemTracker {
  const { github, config, redact } = options;
  const { before, attempt, log } = input;
  const quiet = (what: string, work: () => Promise<unknown>) => quietly(options, log, what, work);
  const nowIso = () => new Date(options.clock.now()).toISOString();
  const record = (): TrackingRecord => ({
    ...emptyTrackingRecord(nowIso()),
    attempts: attempt,
    failure_count: before?.failure_count ?? 0,
    failure_reasons: (before?.failure_reasons ?? []).map((f) => ({ ...f })),
    last_outcome: before?.last_outcome ?? null,
  });
  const track = (
    phase: TrackingPhase,
    extra: {
      prUrl?: string;
      costUsd?: number;
      lastFailure?: string;
      pausedBy?: string;
      record?: TrackingRecord;
    } = {},
  ) =>
    // Without the store's record the comment's hidden history would be overwritten with a blank one.
    !input.readable()
      ? Promise.resolve()
      : quiet(`tracking comment of #${issue.number}`, () =>
          github.tracking.upsert(issue.number, {
            phase,
            attempt,
            model: config.model.primary,
            ...(config.sandbox.mode === 'none' ? { unsandboxed: true } : {}),
            record: record(),
            ...extra,
          }),
        );
  const boardMove = (phase: BoardPhase): Promise<void> => {
    const board = github.board;
    if (!board) return Promise.resolve();
    return quiet(`board move of #${issue.number} to ${phase}`, async () => {
      await board.setStatus({ number: issue.number, nodeId: issue.nodeId }, phase);
      await input.ledger.append('board_move', { issue: issue.number, phase });
    });
  };

  const label = inProgressLabel(github, issue, quiet);
  // Verify that ends within a second is one edit with the outcome: the comment is not touched twice.
  const verifying = coalesced(options.clock, () => track('verifying'));

  return {
    async claimed() {
      await boardMove('working');
      await track('working');
      await label.add();
    },
    phase(phase) {
      if (phase === 'verifying') verifying.start();
    },
    async finished(report, after, paused) {
      verifying.cancel();
      await label.remove();
      const failed = isFailure(report.outcome);
      const finalRecord: TrackingRecord = {
        ...record(),
        failure_count: after?.failure_count ?? 0,
        failure_reasons: (after?.failure_reasons ?? []).map((f) => ({ ...f })),
        last_outcome: paused ? 'interrupted' : report.outcome,
      };
      const cost = { costUsd: report.costUsd, record: finalRecord };
      if (paused) {
        // Not the issue's failure: back in the queue, saying why the run stopped working it.
        await boardMove('queued');
        await track('paused', {
          ...cost,
          pausedBy: `${paused.errorClass} (${redact(paused.message)}); ${paused.fix}`,
        });
      } else if (report.outcome === 'resolved') {
        await boardMove('review');
        await track('review', { ...cost, ...(report.pr ? { prUrl: report.pr.url } : {}) });
      } else if (after?.needs_human) {
        await quiet('needs-human label', async () => {
          await github.labels.ensureLabel(NEEDS_HUMAN_LABEL);
          await github.labels.addLabels(issue.number, [NEEDS_HUMAN_LABEL]);
        });
        await boardMove('blocked');
        await track('blocked', { ...cost, lastFailure: redact(report.reason) });
      } else {
        await boardMove('queued');
        await track(report.outcome === 'interrupted' ? 'queued' : 'failed', {
          ...cost,
          ...(failed ? { lastFailure: redact(report.reason) } : {}),
        });
      }
    },
  };
}
