import type { ProjectConfig } from '../../config/schema.js';
import { createSerialQueue } from '../../core/serial-queue.js';
import { readCacheFile, writeCacheFile } from '../cache-file.js';
import type { GitHubClient } from '../client.js';
import { isGitHubError } from '../github-error.js';
import {
  type BoardPhase,
  type BoardState,
  BoardStateSchema,
  emptyBoardState,
  OPTIONAL_PHASES,
  type ResolvedBoard,
} from './board-state.js';
import { ADD_ITEM, SET_STATUS } from './documents.js';
import { projectKey, resolveProject } from './resolve-project.js';

/**
 * The Projects v2 board as the scheduler sees it: `ensureItem` (idempotent add) and `setStatus`
 * (phase → configured option name). Ids are resolved once and kept in `board.json`; a stale id
 * ("does not belong to the field", NOT_FOUND) re-resolves once. A board write never fails a
 * session: `setStatus` reports, records the move, and `retryPending` tries it again next round.
 */
export interface IssueRef {
  number: number;
  nodeId: string;
}

export type BoardMove = { ok: true } | { ok: false; error: string };

export interface Board {
  resolve(options?: { refresh?: boolean }): Promise<ResolvedBoard>;
  ensureItem(issue: IssueRef): Promise<string>;
  setStatus(issue: IssueRef, phase: BoardPhase): Promise<BoardMove>;
  retryPending(): Promise<{ retried: number; failed: number }>;
  pending(): Readonly<BoardState['pending']>;
}

export interface BoardOptions {
  project: ProjectConfig;
  /** `<state_dir>/board.json`; without it the ids live in memory only. */
  file?: string;
}

const STALE_ID_TEXT = /does not belong to the field|could not resolve to a node|NOT_FOUND/i;

function isStaleId(err: unknown): boolean {
  return isGitHubError(err) && (err.errorClass === 'not_found' || STALE_ID_TEXT.test(err.message));
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The status option a phase maps to; a board without it is a configuration to fix. */
function statusOption(board: ResolvedBoard, project: BoardOptions['project'], phase: BoardPhase) {
  const name = project.statuses[phase];
  const option = board.options.find((o) => o.name === name);
  if (!option) {
    throw new Error(
      `the board's ${board.fieldName} field has no option "${name}" (for ${phase}): run \`issueloop board init\` to add it, or set project.statuses.${phase}`,
    );
  }
  return { name, option };
}

/** A move that failed, kept in the state file to retry next round. */
function recordPending(state: BoardState, issue: IssueRef, phase: BoardPhase, err: unknown, now: number) {
  const key = String(issue.number);
  const error = describe(err);
  const attempts = (state.pending[key]?.attempts ?? 0) + 1;
  state.pending[key] = { nodeId: issue.nodeId, phase, error, at: new Date(now).toISOString(), attempts };
  return { error, attempts };
}

/** Every move that failed before, tried again in the order it was recorded. */
async function retryPending(
  state: BoardState,
  setStatus: (issue: IssueRef, phase: BoardPhase) => Promise<BoardMove>,
): Promise<{ retried: number; failed: number }> {
  let retried = 0;
  let failed = 0;
  for (const [key, move] of Object.entries({ ...state.pending })) {
    retried += 1;
    const result = await setStatus({ number: Number(key), nodeId: move.nodeId }, move.phase);
    if (!result.ok) failed += 1;
  }
  return { retried, failed };
}

export async function openBoard(gh: GitHubClient, options: BoardOptions): Promise<Board> {
  const { project, file } = options;
  const log = gh.log.child({ component: 'board' });
  const loaded = file ? await readCacheFile(file, BoardStateSchema, { log, now: gh.clock.now() }) : undefined;
  const state: BoardState = loaded ?? emptyBoardState();
  if (state.resolved && state.resolved.key !== projectKey(project)) {
    // Another board was configured since: its item ids mean nothing here.
    Object.assign(state, emptyBoardState());
  }
  const serial = createSerialQueue();
  const save = () => (file ? serial(() => writeCacheFile(file, state)) : Promise.resolve());

  async function resolve(opts: { refresh?: boolean } = {}): Promise<ResolvedBoard> {
    if (state.resolved && !opts.refresh) return state.resolved;
    state.resolved = await resolveProject(gh, project);
    if (opts.refresh) state.items = {};
    await save();
    return state.resolved;
  }

  async function ensureItem(issue: IssueRef): Promise<string> {
    const known = state.items[String(issue.number)];
    if (known) return known;
    const board = await resolve();
    const data = await gh.call(
      `add #${issue.number} to the board`,
      () =>
        gh.projectsGraphql<{ addProjectV2ItemById: { item: { id: string } } }>(ADD_ITEM, {
          project: board.projectId,
          content: issue.nodeId,
        }),
      'project',
    );
    const id = data.addProjectV2ItemById.item.id;
    state.items[String(issue.number)] = id;
    await save();
    return id;
  }

  async function move(issue: IssueRef, phase: BoardPhase): Promise<void> {
    const board = await resolve();
    // A column the board may lack (Plan review): no move, and nothing to retry.
    if (OPTIONAL_PHASES.has(phase) && !board.options.some((o) => o.name === project.statuses[phase])) return;
    const { name, option } = statusOption(board, project, phase);
    const item = await ensureItem(issue);
    await gh.call(
      `move #${issue.number} to ${name}`,
      () =>
        gh.projectsGraphql(SET_STATUS, {
          project: board.projectId,
          item,
          field: board.fieldId,
          option: option.id,
        }),
      'project',
    );
  }

  async function setStatus(issue: IssueRef, phase: BoardPhase): Promise<BoardMove> {
    const key = String(issue.number);
    try {
      try {
        await move(issue, phase);
      } catch (err) {
        if (!isStaleId(err)) throw err;
        log.info(
          { issue: issue.number, error: describe(err) },
          'board: ids went stale; resolving the board again',
        );
        await resolve({ refresh: true });
        await move(issue, phase);
      }
      if (state.pending[key]) {
        delete state.pending[key];
        await save();
      }
      return { ok: true };
    } catch (err) {
      const { error, attempts } = recordPending(state, issue, phase, err, gh.clock.now());
      await save().catch(() => undefined);
      log.warn(
        { issue: issue.number, phase, error, attempts },
        'board: move failed; it will be retried next round',
      );
      return { ok: false, error };
    }
  }

  return {
    resolve,
    ensureItem,
    setStatus,
    retryPending: () => retryPending(state, setStatus),
    pending: () => state.pending,
  };
}
