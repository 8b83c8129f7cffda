import type { ClaimView } from '../../claims/claim-store.js';
import { REFUSED_NEEDS_HUMAN } from '../../claims/claims-state.js';
import type { Clock } from '../../core/clock.js';
import type { Log } from '../../core/logger.js';
import type { BoardPhase } from '../../github/board/board-state.js';
import type { BacklogIssue } from '../../github/issue-shape.js';
import { IN_PROGRESS_LABEL, NEEDS_HUMAN_LABEL } from '../../github/labels.js';
import {
  emptyTrackingRecord,
  type TrackingPhase,
  type TrackingRecord,
  type TrackingView,
} from '../../github/tracking-comment.js';
import type { RunCause } from '../../scheduler/run-failure.js';
import type { ItemTracker, TrackerInput } from '../../scheduler/work-source.js';
import { isFailure } from '../../session/outcome.js';
import type { SessionReport } from '../../session/session-report.js';
import type { IssueSourceOptions } from './options.js';
import { trackedSession } from './session-entries.js';

/** Runs one issue's write after the ones asked for before it (`issueWrites().inOrder`). */
export type InOrder = (issue: number, work: () => Promise<void>) => Promise<void>;

/**
 * One issue's tracking writes, in the order they were asked for, across its claims in a run: the
 * outcome of one attempt lands before the next attempt's claim. `settle` waits for all of them.
 */
export function issueWrites() {
  const tails = new Map<number, Promise<void>>();
  return {
    inOrder(issue: number, work: () => Promise<void>): Promise<void> {
      const done = (tails.get(issue) ?? Promise.resolve()).then(work);
      const tail = done.finally(() => {
        if (tails.get(issue) === tail) tails.delete(issue);
      });
      tails.set(issue, tail);
      return done;
    },
    async settle(): Promise<void> {
      while (tails.size > 0) await Promise.all(tails.values());
    },
  };
}

/** Board and tracking comment never fail a session: their errors are logged and the work goes on. */
export async function quietly(
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

/** The needs-human label on an issue, created first if the repository lacks it. */
export async function labelNeedsHuman(
  labels: Pick<IssueSourceOptions['github']['labels'], 'ensureLabel' | 'addLabels'>,
  issue: number,
): Promise<void> {
  await labels.ensureLabel(NEEDS_HUMAN_LABEL);
  await labels.addLabels(issue, [NEEDS_HUMAN_LABEL]);
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

/** One issue's tracking writes: the comment (with the store's record), the board, quietly. */
function issueWriters(options: IssueSourceOptions, issue: BacklogIssue, input: TrackerInput) {
  const { github, config } = options;
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
      blockedRequests?: TrackingView['blockedRequests'];
      blockedOthers?: number;
      bestOf?: TrackingView['bestOf'];
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
  return { quiet, record, track, boardMove, label: inProgressLabel(github, issue, quiet) };
}

type IssueWriters = ReturnType<typeof issueWriters>;

/** The sessions the outcome store keeps for the issue, for its comment; none when it cannot tell. */
async function storedSessions(
  options: Pick<IssueSourceOptions, 'outcomes'>,
  issue: BacklogIssue,
  writers: Pick<IssueWriters, 'quiet'>,
): Promise<Pick<TrackingRecord, 'sessions'>> {
  const store = options.outcomes;
  if (!store) return {};
  let sessions: TrackingRecord['sessions'];
  await writers.quiet(`outcome record of #${issue.number}`, async () => {
    sessions = (await store.get(issue.number))?.sessions.map(trackedSession);
  });
  return sessions ? { sessions } : {};
}

/** The outcome on GitHub: the label off, the board's column, the comment's phase and record. */
async function writeOutcome(
  options: IssueSourceOptions,
  issue: BacklogIssue,
  writers: IssueWriters,
  ended: { report: SessionReport; after: ClaimView | undefined; paused: RunCause | undefined },
): Promise<void> {
  const { github, redact } = options;
  const { quiet, record, track, boardMove, label } = writers;
  const { report, after, paused } = ended;
  await label.remove();
  const failed = isFailure(report.outcome);
  const finalRecord: TrackingRecord = {
    ...record(),
    // The store's, this session's included (kept before this write): a fresh store imports them.
    ...(await storedSessions(options, issue, writers)),
    failure_count: after?.failure_count ?? 0,
    failure_reasons: (after?.failure_reasons ?? []).map((f) => ({ ...f })),
    // As the claim records it: a runner that imports this history skips the item too.
    last_outcome: paused ? 'interrupted' : report.needsHuman ? REFUSED_NEEDS_HUMAN : report.outcome,
  };
  const cost = {
    costUsd: report.costUsd,
    record: finalRecord,
    ...(report.blockedRequests?.length ? { blockedRequests: report.blockedRequests } : {}),
    ...(report.blockedOthers ? { blockedOthers: report.blockedOthers } : {}),
    ...(report.bestOf ? { bestOf: report.bestOf } : {}),
  };
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
  } else if (report.outcome === 'plan_review') {
    // Its plan waits for a maintainer (a board without a Plan review column is not moved).
    await boardMove('plan_review');
    await track('queued', cost);
  } else if (after?.needs_human || report.needsHuman) {
    // A refusal no retry fixes (a protected path) goes to a human at once; the label keeps it out of
    // the backlog (exclude_labels) until a person takes it off.
    await quiet('needs-human label', () => labelNeedsHuman(github.labels, issue.number));
    await boardMove('blocked');
    await track('blocked', { ...cost, lastFailure: redact(report.reason) });
  } else {
    await boardMove('queued');
    await track(report.outcome === 'interrupted' ? 'queued' : 'failed', {
      ...cost,
      ...(failed ? { lastFailure: redact(report.reason) } : {}),
    });
  }
}

/**
 * The tracking comment, the labels and the board, following one issue's session. Its writes go
 * through `inOrder` (never failing: `quiet`); the outcome's are left going when `finished` returns.
 */
export function trackIssue(
  options: IssueSourceOptions,
  issue: BacklogIssue,
  input: TrackerInput,
  inOrder: InOrder,
): ItemTracker {
  const writers = issueWriters(options, issue, input);
  const { track, boardMove, label } = writers;
  const next = (work: () => Promise<void>) => inOrder(issue.number, work);
  // Verify that ends within a second is one edit with the outcome: the comment is not touched twice.
  const verifying = coalesced(options.clock, () => next(() => track('verifying')));

  return {
    // The claim's writes run while the session starts; every later write of the issue comes after
    // them, so the comment they create is edited, never created twice.
    claimed: () =>
      next(async () => {
        await boardMove('working');
        await track('working');
        await label.add();
      }),
    phase(phase) {
      if (phase === 'verifying') verifying.start();
    },
    finished(report, after, paused) {
      verifying.cancel();
      // The worker goes on to its next issue while these paced writes are made.
      void next(() => writeOutcome(options, issue, writers, { report, after, paused }));
      return Promise.resolve();
    },
  };
}
