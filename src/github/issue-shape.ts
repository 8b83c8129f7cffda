import { z } from 'zod';
import { sanitizeIssueTitle } from './issue-title.js';

/**
 * The fields of a GitHub issue issueloop works with, read from REST answers and webhook payloads
 * alike (they share the shape). Parsing is lenient about extra fields, strict about the ones we use.
 */
export const WRITE_ASSOCIATIONS = ['OWNER', 'MEMBER', 'COLLABORATOR'] as const;

export interface BacklogIssue {
  number: number;
  nodeId: string;
  /**
   * Sanitised where the issue enters (`sanitizeIssueTitle`): one clean line, so every consumer —
   * the model, the pull request, the commit, logs and summaries — gets the same safe text. Nothing
   * needs the raw title: trust comes from who labelled and who edited, not from the text.
   */
  title: string;
  /**
   * Raw: the `<!-- boot: -->` directive is read from it. The session sanitises it
   * (`sanitizeIssueText`) where it becomes the model's first message, its one consumer.
   */
  body: string;
  labels: string[];
  author: string;
  authorType: string;
  authorAssociation: string;
  createdAt: string;
  updatedAt: string;
  url: string;
  isPullRequest: boolean;
  /**
   * GitHub's count of the open issues this one is blocked by (`issue_dependencies_summary.blocked_by`);
   * absent where GitHub does not send it (a GitHub Enterprise Server without issue dependencies).
   */
  openBlockers?: number;
}

const RawIssueSchema = z.object({
  number: z.int().positive(),
  node_id: z.string(),
  title: z.string(),
  body: z.string().nullish(),
  labels: z.array(z.union([z.string(), z.object({ name: z.string() })])).default([]),
  user: z.object({ login: z.string(), type: z.string().default('User') }).nullish(),
  author_association: z.string().default('NONE'),
  created_at: z.string(),
  updated_at: z.string(),
  html_url: z.string().default(''),
  pull_request: z.unknown().optional(),
  issue_dependencies_summary: z.object({ blocked_by: z.int().nonnegative() }).nullish(),
});

/** Throws a zod error naming the bad field when GitHub (or a fixture) sends something unexpected. */
export function toBacklogIssue(raw: unknown): BacklogIssue {
  const issue = RawIssueSchema.parse(raw);
  return {
    number: issue.number,
    nodeId: issue.node_id,
    title: sanitizeIssueTitle(issue.title),
    body: issue.body ?? '',
    labels: issue.labels.map((l) => (typeof l === 'string' ? l : l.name)),
    // A deleted account shows as null; GitHub renders it as "ghost".
    author: issue.user?.login ?? 'ghost',
    authorType: issue.user?.type ?? 'User',
    authorAssociation: issue.author_association,
    createdAt: issue.created_at,
    updatedAt: issue.updated_at,
    url: issue.html_url,
    isPullRequest: issue.pull_request !== undefined && issue.pull_request !== null,
    ...(issue.issue_dependencies_summary
      ? { openBlockers: issue.issue_dependencies_summary.blocked_by }
      : {}),
  };
}

export function sameLabel(a: string, b: string): boolean {
  return a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;
}
