import { sha1 } from './ids.js';
import { branchSha } from './pull-refs.js';
import type { AnnotationRecord, CheckRunRecord, StatusRecord } from './records.js';
import type { Store } from './store.js';
import type { CheckRunChanges, SeedAnnotation, SeedCheckRun, SeedStatus } from './types.js';

const SHA = /^[0-9a-f]{40}$/;

/** The commit a seeded check or status is for: a sha as given, a branch's current head. */
function seedCommit(store: Store, ref: string | undefined, sha: string | undefined): string {
  if (sha !== undefined) {
    if (!SHA.test(sha)) throw new Error(`emulator: ${sha} is not a full commit sha`);
    return sha;
  }
  if (ref === undefined) throw new Error('emulator: a check run needs a ref or a sha');
  if (SHA.test(ref)) return ref;
  const head = branchSha(store, ref);
  if (head === undefined) throw new Error(`emulator: origin has no branch ${ref}`);
  return head;
}

function annotationRecord(seed: SeedAnnotation): AnnotationRecord {
  return {
    path: seed.path,
    startLine: seed.start_line,
    endLine: seed.end_line,
    level: seed.annotation_level,
    message: seed.message,
    title: seed.title ?? null,
  };
}

/** GitHub refuses a completed run without a conclusion; the emulator refuses the seed. */
function settle(store: Store, run: CheckRunRecord): void {
  if (run.status !== 'completed') {
    run.conclusion = null;
    run.completedAt = null;
    return;
  }
  if (run.conclusion === null)
    throw new Error(`emulator: check run ${run.name} is completed without a conclusion`);
  run.completedAt ??= store.timestamp();
}

export function addCheckRun(store: Store, seed: SeedCheckRun): CheckRunRecord {
  const id = store.ids.next('check');
  const run: CheckRunRecord = {
    id,
    nodeId: store.ids.node('CR', `check:${id}`),
    runId: store.ids.next('run'),
    headSha: seedCommit(store, seed.ref, seed.sha),
    name: seed.name,
    status: seed.conclusion === undefined ? seed.status : 'completed',
    conclusion: seed.conclusion ?? null,
    startedAt: store.timestamp(),
    completedAt: null,
    output: {
      title: seed.output?.title ?? null,
      summary: seed.output?.summary ?? null,
      text: seed.output?.text ?? null,
    },
    annotations: (seed.annotations ?? []).map(annotationRecord),
    ...(seed.log === undefined ? {} : { log: seed.log }),
    ...(seed.app === undefined ? {} : { app: seed.app }),
  };
  settle(store, run);
  store.lifecycle.checkRuns.push(run);
  return run;
}

export function findCheckRun(store: Store, id: number | undefined): CheckRunRecord | undefined {
  return store.lifecycle.checkRuns.find((run) => run.id === id);
}

/** As GitHub's update: a conclusion alone completes the run, annotations are added to the ones it has. */
export function updateCheckRun(store: Store, id: number, changes: CheckRunChanges): void {
  const run = findCheckRun(store, id);
  if (!run) throw new Error(`emulator: no check run ${id}`);
  if (changes.name !== undefined) run.name = changes.name;
  if (changes.conclusion !== undefined) {
    run.conclusion = changes.conclusion;
    run.status = 'completed';
  } else if (changes.status !== undefined) {
    if (changes.status !== 'completed' || run.status !== 'completed') run.completedAt = null;
    run.status = changes.status;
  }
  if (changes.output) {
    run.output = {
      title: changes.output.title,
      summary: changes.output.summary,
      text: changes.output.text ?? run.output.text,
    };
  }
  run.annotations.push(...(changes.annotations ?? []).map(annotationRecord));
  if (changes.log !== undefined) run.log = changes.log;
  settle(store, run);
}

export function addStatus(store: Store, refOrSha: string, seed: SeedStatus, creator: string): StatusRecord {
  const id = store.ids.next('status');
  const status: StatusRecord = {
    id,
    nodeId: store.ids.node('SC', `status:${id}`),
    sha: seedCommit(store, refOrSha, undefined),
    context: seed.context,
    state: seed.state,
    description: seed.description ?? null,
    targetUrl: seed.target_url ?? null,
    creator: store.ensureUser(seed.creator ?? creator).login,
    createdAt: store.timestamp(),
  };
  store.lifecycle.statuses.push(status);
  return status;
}

/** Every check run of a commit, newest first. */
export function checkRunsOf(store: Store, sha: string): CheckRunRecord[] {
  return store.lifecycle.checkRuns.filter((run) => run.headSha === sha).reverse();
}

/** The first (newest) of each key, in order. */
function firstPer<T>(list: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return list.filter((item) => {
    if (seen.has(key(item))) return false;
    seen.add(key(item));
    return true;
  });
}

/**
 * GitHub's default `filter=latest`: the newest run of each name in each app's check suite (a re-run
 * replaces its own app's run; another app's run of the same name stands beside it).
 */
export function latestRuns(runs: readonly CheckRunRecord[]): CheckRunRecord[] {
  return firstPer(runs, (run) => `${run.app ?? 'github-actions'}\n${run.name}`);
}

/** Every status of a commit, newest first (what `/statuses` lists). */
export function statusesOf(store: Store, sha: string): StatusRecord[] {
  return store.lifecycle.statuses.filter((status) => status.sha === sha).reverse();
}

/** The newest status of each context (what the combined status reports). */
export function latestStatuses(statuses: readonly StatusRecord[]): StatusRecord[] {
  return firstPer(statuses, (status) => status.context);
}

/** GitHub's combined state: failure if any errored or failed, pending if any is pending or there are none. */
export function combinedState(statuses: readonly StatusRecord[]): 'failure' | 'pending' | 'success' {
  if (statuses.some((s) => s.state === 'error' || s.state === 'failure')) return 'failure';
  if (statuses.length === 0 || statuses.some((s) => s.state === 'pending')) return 'pending';
  return 'success';
}

const PASSING = new Set(['success', 'neutral', 'skipped']);

/**
 * Whether a commit's checks (newest run per name) and statuses (newest per context) all passed; no
 * checks at all pass too, as GitHub's mergeable_state "clean" says of a repository without CI.
 */
export function checksPass(store: Store, sha: string): boolean {
  const runs = latestRuns(checkRunsOf(store, sha));
  const statuses = latestStatuses(statusesOf(store, sha));
  return (
    runs.every((run) => run.status === 'completed' && PASSING.has(run.conclusion ?? '')) &&
    statuses.every((status) => status.state === 'success')
  );
}

/** The pre-signed key in a job log's download URL, standing for the storage's signature. */
export function logToken(run: CheckRunRecord): string {
  return sha1(`job-log:${run.id}:${run.nodeId}`).slice(0, 32);
}
