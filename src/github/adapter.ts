import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { type Backlog, listBacklog } from './backlog.js';
import { type Board, openBoard } from './board/board.js';
import type { GitHubClient } from './client.js';
import { type CommentCommands, createCommentCommands } from './comment-commands.js';
import { createDependencyReader, type DependencyReader } from './dependencies.js';
import { type EtagCache, openFileEtagCache } from './etag-cache.js';
import { createIssueOperations, type IssueOperations } from './issues.js';
import { createLabelOperations, type LabelOperations } from './labels.js';
import { createPlanComments, type PlanComments } from './plan-comments.js';
import { createPullWatch, type PullWatch } from './pr-watch.js';
import { createPullRequestOperations, type PullRequestOperations } from './pulls.js';
import { createReviewThreads, type ReviewThreads } from './review-threads.js';
import { createTracking, type TrackingComments } from './tracking.js';
import { createTrustGate, type TrustGate } from './trust.js';

/**
 * Everything issueloop does on GitHub, over one client and one ETag cache, as the scheduler and the
 * session use it. `flush` persists the cache (once per round is enough).
 */
export interface GitHubAdapter {
  client: GitHubClient;
  cache: EtagCache;
  listBacklog(): Promise<Backlog>;
  /** A gate for one round: permissions are looked up once per login per round. */
  trustGate(): TrustGate;
  /** A reader for one round of what blocks each issue: each blocker's state is read once per round. */
  dependencies(): DependencyReader;
  labels: LabelOperations;
  /** Commands in comments: the repository's new comments, reactions, issueloop's own login. */
  commands: CommentCommands;
  issues: IssueOperations;
  tracking: TrackingComments;
  /** Plan comments (`plan:`, `issueloop:plan`): read, posted, withdrawn. */
  plans: PlanComments;
  pulls: PullRequestOperations;
  /** issueloop's own pull requests as they stand (conditional reads). */
  pullWatch: PullWatch;
  /** Review threads of a PR, and issueloop's replies to them (GraphQL). */
  reviewThreads: ReviewThreads;
  /** Absent when no `project:` is configured. */
  board?: Board;
  flush(): Promise<void>;
}

export const ETAG_CACHE_FILE = 'github-etags.json';
export const BOARD_FILE = 'board.json';

export async function openGitHubAdapter(
  client: GitHubClient,
  config: Config,
  options: { stateDir: string },
): Promise<GitHubAdapter> {
  const cache = await openFileEtagCache(join(options.stateDir, ETAG_CACHE_FILE), {
    log: client.log,
    now: client.clock.now(),
  });
  const board = config.project
    ? await openBoard(client, { project: config.project, file: join(options.stateDir, BOARD_FILE) })
    : undefined;
  const adapter: GitHubAdapter = {
    client,
    cache,
    listBacklog: () =>
      listBacklog(client, cache, {
        label: config.label,
        excludeLabels: config.exclude_labels,
        priorityLabels: config.priority_labels,
      }),
    trustGate: () =>
      createTrustGate(client, cache, { label: config.label, trustedAuthors: config.trusted_authors }),
    dependencies: () => createDependencyReader(client, cache),
    labels: createLabelOperations(client, cache),
    commands: createCommentCommands(client, cache),
    issues: createIssueOperations(client),
    tracking: createTracking(client, cache),
    plans: createPlanComments(client, cache),
    pulls: createPullRequestOperations(client, cache),
    pullWatch: createPullWatch(client, cache),
    reviewThreads: createReviewThreads(client),
    flush: () => cache.flush(),
  };
  if (board) adapter.board = board;
  return adapter;
}
