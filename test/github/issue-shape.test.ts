import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { orderBacklog, priorityRank } from '../../src/github/backlog.js';
import { type BacklogIssue, toBacklogIssue } from '../../src/github/issue-shape.js';
import { trustFromAuthor } from '../../src/github/trust.js';

/** Real webhook payloads (npm @octokit/webhooks-examples) share their issue shape with REST. */
interface Example {
  name: string;
  examples: Array<{ action?: string; issue?: unknown; label?: { name: string }; sender?: { login: string } }>;
}
const examples = createRequire(import.meta.url)(
  '@octokit/webhooks-examples/api.github.com/index.json',
) as Example[];
const labeled = examples.find((e) => e.name === 'issues')?.examples.find((e) => e.action === 'labeled');
if (!labeled?.issue) throw new Error('webhooks-examples has no issues.labeled payload');
const realIssue = labeled.issue as Record<string, unknown>;

function variant(changes: Record<string, unknown>): BacklogIssue {
  return toBacklogIssue({ ...structuredClone(realIssue), ...changes });
}

describe('toBacklogIssue', () => {
  it('reads a real issues.labeled payload', () => {
    const issue = toBacklogIssue(realIssue);
    expect(issue).toMatchObject({
      number: 1,
      author: 'Codertocat',
      authorAssociation: 'OWNER',
      isPullRequest: false,
    });
    expect(issue.labels).toContain('bug');
    expect(issue.nodeId).not.toBe('');
  });

  it('marks pull requests, tolerates a null body and a deleted author', () => {
    const pr = variant({ pull_request: { url: 'x' }, body: null, user: null });
    expect(pr).toMatchObject({ isPullRequest: true, body: '', author: 'ghost' });
  });

  it('names the bad field of a malformed issue', () => {
    expect(() => toBacklogIssue({ ...structuredClone(realIssue), number: 'seven' })).toThrow(/number/);
  });
});

describe('trustFromAuthor', () => {
  it('trusts the owner of a real payload', () => {
    expect(trustFromAuthor(toBacklogIssue(realIssue), [])).toEqual({
      trusted: true,
      reason: 'author_association',
      by: 'Codertocat',
    });
  });

  it.each(['MEMBER', 'COLLABORATOR'])('trusts %s', (association) => {
    expect(trustFromAuthor(variant({ author_association: association }), [])?.trusted).toBe(true);
  });

  it.each(['CONTRIBUTOR', 'FIRST_TIME_CONTRIBUTOR', 'NONE'])(
    'leaves %s to the label check',
    (association) => {
      expect(trustFromAuthor(variant({ author_association: association }), [])).toBeUndefined();
    },
  );

  it('trusted_authors widens it, case-insensitively', () => {
    const issue = variant({ author_association: 'NONE', user: { login: 'Renovate-Bot', type: 'Bot' } });
    expect(trustFromAuthor(issue, ['renovate-bot'])).toMatchObject({
      trusted: true,
      reason: 'trusted_author',
    });
  });
});

describe('backlog order', () => {
  const issue = (number: number, createdAt: string, labels: string[]): BacklogIssue =>
    variant({ number, created_at: createdAt, labels: labels.map((name) => ({ name })) });

  it('priority labels first, in configured order, then oldest first', () => {
    const issues = [
      issue(1, '2026-01-01T00:00:00Z', []),
      issue(2, '2026-01-02T00:00:00Z', ['priority:low']),
      issue(3, '2026-01-03T00:00:00Z', ['Priority:High']),
      issue(4, '2025-12-01T00:00:00Z', []),
      issue(5, '2026-01-04T00:00:00Z', ['priority:high']),
    ];
    expect(orderBacklog(issues, ['priority:high', 'priority:low']).map((i) => i.number)).toEqual([
      3, 5, 2, 4, 1,
    ]);
    expect(priorityRank(issues[0] as BacklogIssue, ['priority:high'])).toBe(1);
  });
});
