import { z } from 'zod';
import { type IssueRef, parseBlockedByLines, refText } from './blocked-by-lines.js';
import { type GitHubClient, repoPath } from './client.js';
import { getAllPages, getConditional } from './conditional-get.js';
import type { EtagCache } from './etag-cache.js';
import { httpStatusOf } from './github-error.js';
import type { BacklogIssue } from './issue-shape.js';

/**
 * What an issue waits for: GitHub's issue dependencies ("blocked by"), and `Blocked by #N` lines in
 * the body of an issue whose author is trusted. Costs per round: nothing for an issue GitHub counts
 * no open blocker for (the backlog listing carries `issue_dependencies_summary`), one conditional
 * read of its `blocked_by` list otherwise; for a body line, nothing when the blocker is in the
 * backlog (it is open), else one conditional read of the blocker, once per round however many
 * issues name it. A conditional read of something unchanged costs no rate limit.
 */
export interface Blocker {
  /** `#N` in this repository, `owner/repo#N` in another. */
  ref: string;
  /** `unreadable`: the token cannot read it (another repository, say), so it is treated as open. */
  state: 'open' | 'unreadable';
}

export interface DependencyOptions {
  /** Whether the issue's body lines count (its author is trusted, and its body with it). */
  linesTrusted(issue: BacklogIssue): boolean;
  /** Issues of this repository the round's backlog listed: open, without asking. */
  openInBacklog: ReadonlySet<number>;
}

type State = 'open' | 'closed' | 'unreadable';

const DependencySchema = z.array(
  z.object({
    number: z.int().positive(),
    state: z.string(),
    repository_url: z.string().optional(),
  }),
);

const StateSchema = z.object({ state: z.string() });

/** `.../repos/<owner>/<name>` → its owner and name; the home repository when absent or odd. */
function repoOfUrl(url: string | undefined, home: GitHubClient['repo']): { owner: string; name: string } {
  const match = url ? /\/repos\/([^/]+)\/([^/]+)\/?$/.exec(url) : null;
  return match?.[1] && match[2] ? { owner: match[1], name: match[2] } : home;
}

/** A reader for one round: each blocker's state is read at most once in it. */
export function createDependencyReader(gh: GitHubClient, cache: EtagCache) {
  const states = new Map<string, Promise<State>>();
  const keyOf = (ref: IssueRef) => `${ref.owner}/${ref.name}#${ref.number}`.toLowerCase();

  function stateOf(ref: IssueRef): Promise<State> {
    const key = keyOf(ref);
    let pending = states.get(key);
    if (!pending) {
      const url = `${repoPath({ owner: ref.owner, name: ref.name })}/issues/${ref.number}`;
      const reduce = (raw: unknown): State => (StateSchema.parse(raw).state === 'closed' ? 'closed' : 'open');
      pending = getConditional(gh, cache, url, reduce, `read the state of ${refText(ref, gh.repo)}`)
        .then((page) => page.data)
        .catch((err: unknown): State => {
          const status = httpStatusOf(err);
          if (status === 404 || status === 403 || status === 410) return 'unreadable';
          throw err;
        });
      states.set(key, pending);
    }
    return pending;
  }

  async function fromGitHub(issue: BacklogIssue): Promise<IssueRef[]> {
    if (!issue.openBlockers) return [];
    const url = `${repoPath(gh.repo)}/issues/${issue.number}/dependencies/blocked_by?per_page=100`;
    const reduce = (raw: unknown) => DependencySchema.parse(raw);
    const listed = await getAllPages(gh, cache, url, reduce, `read what blocks #${issue.number}`);
    const open: IssueRef[] = [];
    for (const item of listed.items) {
      const ref = { ...repoOfUrl(item.repository_url, gh.repo), number: item.number };
      const state: State = item.state === 'closed' ? 'closed' : 'open';
      // GitHub said so just now: a body line naming the same issue needs no read of its own.
      if (!states.has(keyOf(ref))) states.set(keyOf(ref), Promise.resolve(state));
      if (state === 'open') open.push(ref);
    }
    return open;
  }

  async function blockersOf(issue: BacklogIssue, options: DependencyOptions): Promise<Blocker[]> {
    const found = new Map<string, Blocker>();
    for (const ref of await fromGitHub(issue))
      found.set(keyOf(ref), { ref: refText(ref, gh.repo), state: 'open' });
    const lines = options.linesTrusted(issue) ? parseBlockedByLines(issue.body, gh.repo) : [];
    for (const ref of lines) {
      const text = refText(ref, gh.repo);
      if (found.has(keyOf(ref)) || text === `#${issue.number}`) continue;
      const state =
        text.startsWith('#') && options.openInBacklog.has(ref.number) ? 'open' : await stateOf(ref);
      if (state !== 'closed') found.set(keyOf(ref), { ref: text, state });
    }
    return [...found.values()];
  }

  return {
    /** The open (or unreadable) blockers of each of `issues` that has any. */
    async openBlockers(
      issues: readonly BacklogIssue[],
      options: DependencyOptions,
    ): Promise<Map<number, Blocker[]>> {
      const out = new Map<number, Blocker[]>();
      for (const issue of issues) {
        const blockers = await blockersOf(issue, options);
        if (blockers.length > 0) out.set(issue.number, blockers);
      }
      return out;
    },
  };
}

export type DependencyReader = ReturnType<typeof createDependencyReader>;
