import { type GitHubClient, repoPath } from './client.js';
import { getAllPages } from './conditional-get.js';
import type { EtagCache } from './etag-cache.js';
import { httpStatusOf } from './github-error.js';
import { WRITE_ASSOCIATIONS } from './issue-shape.js';
import { mergeSessions, type TrackedSession } from './tracked-sessions.js';
import {
  isTrackingComment,
  parseTrackingRecord,
  renderTrackingComment,
  type TrackingRecord,
  type TrackingView,
} from './tracking-comment.js';

/**
 * The one tracking comment per issue: found again by its marker (so a crash and retry edits the
 * same comment instead of adding a second), edited in place. Only comments written by someone
 * with write access or by a bot count, so a user pasting the marker cannot plant a fake history.
 */
interface CommentSummary {
  id: number;
  body: string;
  trusted: boolean;
}

function reduceComments(raw: unknown): CommentSummary[] {
  if (!Array.isArray(raw)) throw new TypeError('expected an array of comments');
  const out: CommentSummary[] = [];
  for (const entry of raw as Array<Record<string, unknown>>) {
    const body = typeof entry.body === 'string' ? entry.body : '';
    if (typeof entry.id !== 'number' || !isTrackingComment(body)) continue;
    const user = entry.user as { type?: unknown } | null | undefined;
    const association = typeof entry.author_association === 'string' ? entry.author_association : 'NONE';
    const trusted = user?.type === 'Bot' || (WRITE_ASSOCIATIONS as readonly string[]).includes(association);
    out.push({ id: entry.id, body, trusted });
  }
  return out;
}

export function createTracking(gh: GitHubClient, cache: EtagCache) {
  const { owner, name: repo } = gh.repo;
  const known = new Map<number, number>();
  // The sessions each issue's comment lists, as last read or written: a write keeps them.
  const listed = new Map<number, TrackedSession[]>();

  async function find(issue: number): Promise<CommentSummary | undefined> {
    const url = `${repoPath(gh.repo)}/issues/${issue}/comments?per_page=100`;
    const listing = await getAllPages(gh, cache, url, reduceComments, `read the comments of #${issue}`);
    // The oldest trusted one: if two ever existed, every run keeps editing the same one.
    const found = listing.items.find((c) => c.trusted);
    if (found) {
      known.set(issue, found.id);
      listed.set(issue, parseTrackingRecord(found.body)?.sessions ?? []);
    }
    return found;
  }

  async function create(issue: number, body: string): Promise<number> {
    const created = await gh.call(`comment on #${issue}`, () =>
      gh.rest.issues.createComment({ owner, repo, issue_number: issue, body }),
    );
    known.set(issue, created.data.id);
    return created.data.id;
  }

  async function update(issue: number, id: number, body: string): Promise<boolean> {
    try {
      await gh.call(`update the tracking comment of #${issue}`, () =>
        gh.rest.issues.updateComment({ owner, repo, comment_id: id, body }),
      );
      return true;
    } catch (err) {
      // Deleted by someone since we found it: find again or write a new one.
      if (httpStatusOf(err) !== 404) throw err;
      known.delete(issue);
      return false;
    }
  }

  return {
    /** The machine record kept in the tracking comment, when there is a readable one. */
    async readRecord(issue: number): Promise<TrackingRecord | undefined> {
      const found = await find(issue);
      return found ? parseTrackingRecord(found.body) : undefined;
    },

    /**
     * Writes the comment: edits the existing one, creates it only when none exists. The sessions it
     * lists stay, with the view's added (`mergeSessions`): a writer that knows none (a claim's, the
     * sweep's) or fewer (a fresh store) erases none.
     */
    async upsert(issue: number, view: TrackingView): Promise<{ id: number; created: boolean }> {
      // Rendered after `find` (when it runs), which reads the sessions the comment lists.
      const next = () => {
        const sessions = mergeSessions(listed.get(issue) ?? [], view.record.sessions ?? []);
        const record = { ...view.record, sessions };
        return { sessions, body: renderTrackingComment({ ...view, record }, gh.redact) };
      };
      const edit = async (id: number) => {
        const { sessions, body } = next();
        if (!(await update(issue, id, body))) return false;
        listed.set(issue, sessions);
        return true;
      };
      const cachedId = known.get(issue);
      if (cachedId !== undefined && (await edit(cachedId))) return { id: cachedId, created: false };
      const found = await find(issue);
      if (found && (await edit(found.id))) return { id: found.id, created: false };
      const { sessions, body } = next();
      const id = await create(issue, body);
      listed.set(issue, sessions);
      return { id, created: true };
    },
  };
}

export type TrackingComments = ReturnType<typeof createTracking>;
