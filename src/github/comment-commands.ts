import { type GitHubClient, repoPath } from './client.js';
import { getAllPages, getConditional } from './conditional-get.js';
import type { EtagCache } from './etag-cache.js';
import { httpStatusOf } from './github-error.js';
import { isOwnHead, issueOfBranch } from './own-branch.js';
import { VIEWER_LOGIN } from './review-threads.js';

/**
 * Commands people give issueloop in comments (`/issueloop retry`, `/issueloop stop`, `/issueloop
 * plan`, and `/approve`, `/revise` answering a plan), and what reading them costs: the repository's
 * comments since a moment (one conditional request a page, a 304 while nothing changed), the
 * reactions on a comment, issueloop's own login (once), and the 👍 issueloop leaves on a command it
 * worked, which is also how a later run knows it was worked.
 */
export type CommentCommand = 'retry' | 'stop' | 'plan' | 'approve' | 'revise';

/** The reaction that answers a command, and marks it worked for every later run. */
export const DONE_REACTION = '+1';

const COMMAND_LINE = /^\/issueloop (retry|stop|plan)\s*$/i;
const APPROVE_LINE = /^\/approve\s*$/i;
/** `/revise`, alone or followed by what to change (on its line, and the lines after it). */
const REVISE_LINE = /^\/revise(?:\s+(.*))?$/i;

function firstLine(body: string): { line: string; rest: string } | undefined {
  const lines = body.split(/\r?\n/);
  const at = lines.findIndex((line) => line.trim() !== '');
  if (at === -1) return undefined;
  return { line: (lines[at] as string).trimEnd(), rest: lines.slice(at + 1).join('\n') };
}

/**
 * The command a comment gives: its first non-blank line is exactly `/issueloop retry`,
 * `/issueloop stop`, `/issueloop plan` or `/approve` (any case, trailing blanks allowed), or starts
 * with `/revise`. Anything else on that line, or the command further down (quoted, in a code block),
 * is not one.
 */
export function parseCommand(body: string): CommentCommand | undefined {
  const first = firstLine(body);
  if (!first) return undefined;
  const match = COMMAND_LINE.exec(first.line);
  if (match) return (match[1] as string).toLowerCase() as CommentCommand;
  if (APPROVE_LINE.test(first.line)) return 'approve';
  return REVISE_LINE.test(first.line) ? 'revise' : undefined;
}

/**
 * What a `/revise` comment asks to change: the rest of its first line and the lines after it,
 * trimmed (empty for a bare `/revise`); undefined when the comment is no `/revise`.
 */
export function reviseRequest(body: string): string | undefined {
  const first = firstLine(body);
  const match = first ? REVISE_LINE.exec(first.line) : null;
  if (!first || !match) return undefined;
  return [match[1] ?? '', first.rest].join('\n').trim();
}

/** How a command is written: `/issueloop retry`, `/approve`. */
export function commandText(command: CommentCommand): string {
  return command === 'approve' || command === 'revise' ? `/${command}` : `/issueloop ${command}`;
}

export interface IssueComment {
  id: number;
  /** The issue or pull request it is on. */
  number: number;
  author: string;
  body: string;
  updatedAt: string;
}

function reduceComments(raw: unknown): IssueComment[] {
  if (!Array.isArray(raw)) throw new TypeError('expected an array of issue comments');
  const out: IssueComment[] = [];
  for (const entry of raw as Array<Record<string, unknown>>) {
    const number = Number(/\/issues\/(\d+)$/.exec(String(entry.issue_url ?? ''))?.[1]);
    const user = entry.user as { login?: unknown } | null | undefined;
    if (typeof entry.id !== 'number' || !Number.isInteger(number)) continue;
    out.push({
      id: entry.id,
      number,
      author: typeof user?.login === 'string' ? user.login : 'ghost',
      body: typeof entry.body === 'string' ? entry.body : '',
      updatedAt: typeof entry.updated_at === 'string' ? entry.updated_at : '',
    });
  }
  return out;
}

function reduceReactors(raw: unknown): string[] {
  if (!Array.isArray(raw)) throw new TypeError('expected an array of reactions');
  return (raw as Array<{ user?: { login?: unknown } | null }>).flatMap((r) =>
    typeof r.user?.login === 'string' ? [r.user.login] : [],
  );
}

/** Where a command on number `n` lands: the issue itself, or issueloop's PR's issue, or nowhere. */
export type CommandTarget = { issue: number } | { ignore: string };

export function createCommentCommands(gh: GitHubClient, cache: EtagCache) {
  const repo = repoPath(gh.repo);
  let viewer: Promise<string> | undefined;
  return {
    /** Every issue and PR comment created or edited at or after `since` (ISO 8601), oldest first. */
    async since(since: string): Promise<{ comments: IssueComment[]; notModified: boolean }> {
      const query = new URLSearchParams({ since, sort: 'updated', direction: 'asc', per_page: '100' });
      const url = `${repo}/issues/comments?${query}`;
      const all = await getAllPages(gh, cache, url, reduceComments, 'read new comments', 10);
      return { comments: all.items, notModified: all.notModified === all.pages };
    },

    /** Who reacted with `content` on a comment (conditional: free once read). */
    async reactors(comment: number, content: string): Promise<string[]> {
      const query = new URLSearchParams({ content, per_page: '100' });
      const url = `${repo}/issues/comments/${comment}/reactions?${query}`;
      return (
        await getAllPages(gh, cache, url, reduceReactors, `read the reactions on comment ${comment}`, 5)
      ).items;
    },

    async react(comment: number, content: '+1'): Promise<void> {
      await gh.call(`react to comment ${comment}`, () =>
        gh.rest.reactions.createForIssueComment({
          owner: gh.repo.owner,
          repo: gh.repo.name,
          comment_id: comment,
          content,
        }),
      );
    },

    /** The login issueloop acts as (GraphQL's viewer: a user, or an App's bot), asked once. */
    viewerLogin(): Promise<string> {
      viewer ??= gh
        .call('read who issueloop is', () => gh.graphql<{ viewer: { login: string } }>(VIEWER_LOGIN))
        .then((answer) => answer.viewer.login)
        .catch((err: unknown) => {
          viewer = undefined;
          throw err;
        });
      return viewer;
    },

    /** An issue's number is its own; a PR's comments count only on issueloop's own branch. */
    async target(number: number): Promise<CommandTarget> {
      try {
        const page = await getConditional(
          gh,
          cache,
          `${repo}/pulls/${number}`,
          (raw) => {
            const head = (
              raw as { head?: { ref?: unknown; label?: unknown; repo?: { full_name?: unknown } | null } }
            ).head;
            return { issue: issueOfBranch(head?.ref), own: isOwnHead(head, gh.repo) };
          },
          `read pull request #${number}`,
        );
        const { issue, own } = page.data;
        if (issue === undefined || !own) return { ignore: `#${number} is not issueloop's pull request` };
        return { issue };
      } catch (err) {
        // No pull request of that number: an issue.
        if (httpStatusOf(err) === 404) return { issue: number };
        throw err;
      }
    },
  };
}

export type CommentCommands = ReturnType<typeof createCommentCommands>;
