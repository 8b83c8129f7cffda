import type { HumanTouch, OutcomeRecord, PullFate } from '../../claims/outcome-record.js';
import type { OutcomeStore } from '../../claims/outcome-store.js';
import type { Config } from '../../config/schema.js';
import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import type { GitHubAdapter } from '../../github/adapter.js';
import type { OwnPull } from '../../github/pr-watch.js';
import { sessionEntry } from './session-entries.js';

/**
 * The sweep's part in the outcome records: each current PR's fate (open, merged, closed unmerged;
 * when, by whom) and what people did to it (commits by others on the branch, change requests, review
 * threads they opened). A PR is read for them only when its head or updated_at moved since its record
 * (a merged one, once): an unchanged backlog costs no request here.
 */
export interface PullOutcomeInput {
  github: Pick<GitHubAdapter, 'pullWatch' | 'reviewThreads' | 'issues' | 'tracking'>;
  outcomes: OutcomeStore;
  /** `pr.author`: the identity issueloop's commits carry (the App's bot with an App). */
  config: Pick<Config, 'pr'>;
  log: Log;
  redact: Redactor;
  now: () => number;
  /** Issues whose record this run tried to import already. */
  outcomesImported?: Set<number>;
}

/** True when the record already holds this read of the PR. */
function unchanged(kept: PullFate | undefined, pull: OwnPull): boolean {
  if (!kept || kept.number !== pull.number) return false;
  if (kept.state === 'merged') return true;
  return kept.state === stateOf(pull) && kept.head_sha === pull.headSha && kept.updated_at === pull.updatedAt;
}

const stateOf = (pull: OwnPull): PullFate['state'] =>
  pull.merged ? 'merged' : pull.state === 'open' ? 'open' : 'closed';

async function fateOf(input: PullOutcomeInput, pull: OwnPull): Promise<PullFate> {
  const state = stateOf(pull);
  const fate: PullFate = {
    number: pull.number,
    url: pull.url,
    state,
    opened_at: pull.createdAt ?? new Date(input.now()).toISOString(),
    head_sha: pull.headSha,
    updated_at: pull.updatedAt,
  };
  if (state === 'merged') {
    const by = (await input.github.pullWatch.detail(pull.number)).mergedBy;
    return { ...fate, ...(pull.mergedAt ? { merged_at: pull.mergedAt } : {}), ...(by ? { by } : {}) };
  }
  if (state !== 'closed') return fate;
  // GitHub's issue view of the PR says who closed it (its PR view does not).
  const by = (await input.github.issues.get(pull.number)).closedBy;
  return { ...fate, ...(pull.closedAt ? { closed_at: pull.closedAt } : {}), ...(by ? { by } : {}) };
}

async function touchOf(input: PullOutcomeInput, pull: OwnPull): Promise<HumanTouch> {
  const ours = input.config.pr.author.email.toLowerCase();
  const commits = await input.github.pullWatch.commits(pull.number);
  const self = (await input.github.reviewThreads.viewer()).toLowerCase();
  const reviews = await input.github.reviewThreads.read(pull.number);
  const byPeople = (login: string | undefined) => login !== undefined && login.toLowerCase() !== self;
  return {
    commits: commits.filter(
      (c) => c.authorEmail.toLowerCase() !== ours || c.committerEmail.toLowerCase() !== ours,
    ).length,
    change_requests: (reviews.changeRequesters ?? []).filter(byPeople).length,
    threads: reviews.threads.filter((t) => byPeople(t.comments[0]?.author)).length,
  };
}

/**
 * A PR whose issue has no record (a new runner, a lost state directory, every Actions job) gets
 * one read back from GitHub: the issue's title and labels, and the sessions its tracking comment
 * lists (with what they cost); the first claim known is the PR's opening or the first session's end,
 * whichever is earlier. An issue whose reads fail is tried again next sweep.
 */
async function importedRecord(input: PullOutcomeInput, pull: OwnPull): Promise<OutcomeRecord | undefined> {
  const tried = input.outcomesImported;
  if (tried?.has(pull.issue)) return undefined;
  const issue = await input.github.issues.get(pull.issue);
  const sessions = ((await input.github.tracking.readRecord(pull.issue))?.sessions ?? []).map(sessionEntry);
  tried?.add(pull.issue);
  const opened = pull.createdAt ?? new Date(input.now()).toISOString();
  const first = sessions.map((s) => s.at).reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a), opened);
  const record: OutcomeRecord = {
    issue: pull.issue,
    title: issue.title,
    labels: [...issue.labels],
    first_claimed_at: first,
    sessions,
    touch: { commits: 0, change_requests: 0, threads: 0 },
  };
  await input.outcomes.importRecord(pull.issue, record);
  return input.outcomes.get(pull.issue);
}

/** Keeps the records of `pulls` (each issue's current PR); GitHub's errors are logged, never thrown. */
export async function keepPullOutcomes(input: PullOutcomeInput, pulls: readonly OwnPull[]): Promise<void> {
  if (pulls.length === 0) return;
  let known: Map<number, OutcomeRecord>;
  try {
    known = new Map((await input.outcomes.list()).map((r) => [r.issue, r]));
  } catch (err) {
    input.log.warn({ err: input.redact((err as Error).message) }, 'could not read the outcome records');
    return;
  }
  for (const pull of pulls) {
    try {
      const record = known.get(pull.issue) ?? (await importedRecord(input, pull));
      if (!record || unchanged(record.pull, pull)) continue;
      const fate = await fateOf(input, pull);
      await input.outcomes.recordPull(pull.issue, fate, await touchOf(input, pull));
    } catch (err) {
      input.log.warn(
        { err: input.redact((err as Error).message), issue: pull.issue },
        `could not keep the outcome of #${pull.issue}'s pull request; next sweep`,
      );
    }
  }
}
