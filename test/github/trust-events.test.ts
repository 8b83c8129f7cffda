import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/redact.js';
import { createGitHubClient } from '../../src/github/client.js';
import { createMemoryEtagCache } from '../../src/github/etag-cache.js';
import type { BacklogIssue } from '../../src/github/issue-shape.js';
import { createTrustGate, type TrustDecision } from '../../src/github/trust.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';

/**
 * The trust gate against GitHub answers the emulator never gives: deleted accounts (`actor: null`),
 * events without a label, permissions without `role_name`, lookups that fail. Each answer is scripted
 * per path; anything unscripted is a 404, as GitHub answers for an unknown user.
 */
type Answer = { status: number; body: unknown };
const REPO = '/repos/octo-org/widgets';
const AT = (minute: number) => `2026-11-21T12:${String(minute).padStart(2, '0')}:00Z`;

function scripted(answers: Record<string, Answer>) {
  const requests: string[] = [];
  const fetch = async (input: string | URL | Request): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const path = url.pathname;
    requests.push(path);
    const answer = answers[path] ?? { status: 404, body: { message: 'Not Found' } };
    return new Response(JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json' },
    });
  };
  const gh = createGitHubClient({
    apiUrl: 'https://api.github.test',
    graphqlUrl: 'https://api.github.test/graphql',
    token: 'ghp_scripted',
    repo: { owner: 'octo-org', name: 'widgets' },
    userAgent: 'issueloop/test',
    fetch: fetch as typeof globalThis.fetch,
    log: createMemoryLog(),
    clock: new FakeClock(),
    redact: createRedactor([]),
    retryUnitMs: 0,
    writeSpacingMs: 0,
  });
  const gate = (trustedAuthors: string[] = []) =>
    createTrustGate(gh, createMemoryEtagCache(), { label: 'issueloop', trustedAuthors });
  return { gate, requests };
}

function issue(number: number, author = 'drive-by', authorAssociation = 'NONE'): BacklogIssue {
  return {
    number,
    nodeId: `I_${number}`,
    title: 't',
    body: 'b',
    labels: ['issueloop'],
    author,
    authorType: 'User',
    authorAssociation,
    createdAt: AT(0),
    updatedAt: AT(0),
    url: '',
    isPullRequest: false,
  };
}

const labeled = (login: string | null, minute: number, name: string | null = 'issueloop') => ({
  event: 'labeled',
  actor: login === null ? null : { login },
  label: name === null ? null : { name },
  created_at: AT(minute),
});
const unlabeled = (login: string, minute: number) => ({ ...labeled(login, minute), event: 'unlabeled' });
const ok = (body: unknown): Answer => ({ status: 200, body });
const role = (permission: string, role_name?: string): Answer => ok({ permission, role_name });
const events = (n: number, list: unknown[]): Record<string, Answer> => ({
  [`${REPO}/issues/${n}/events`]: ok(list),
});
const noEdits = (...ids: string[]): Record<string, Answer> => ({
  '/graphql': ok({ data: { nodes: ids.map((id) => ({ __typename: 'Issue', id, lastEditedAt: null })) } }),
});
const permissionPath = (login: string) => `${REPO}/collaborators/${login}/permission`;

function refusal(decision: TrustDecision): string {
  expect(decision.trusted).toBe(false);
  return decision.trusted ? '' : decision.reason;
}

describe('trust gate: what GitHub answers about labels', () => {
  it('a label applied by a deleted account (actor null) is no vouch: it is read as ghost, unknown to the repository', async () => {
    const { gate, requests } = scripted(events(7, [labeled(null, 0)]));
    expect(refusal(await gate().check(issue(7)))).toMatch(
      /"issueloop" was applied by ghost \(permission none\)/,
    );
    expect(requests).toContain(permissionPath('ghost'));
  });

  it('an event whose label is missing neither crashes the gate nor hides the real label event', async () => {
    const { gate } = scripted({
      ...events(7, [labeled('maint', 0, null), labeled('maint', 1)]),
      [permissionPath('maint')]: role('write', 'maintain'),
      ...noEdits('I_7'),
    });
    expect(await gate().check(issue(7))).toEqual({ trusted: true, reason: 'labeled_by_writer', by: 'maint' });
  });

  it('an issue with no labeled event for the trigger label is refused, with the reason', async () => {
    const { gate } = scripted(events(7, [labeled('maint', 0, 'bug')]));
    expect(refusal(await gate().check(issue(7)))).toBe(
      'author drive-by (NONE) has no write access and no labeled event for "issueloop" was found',
    );
  });

  it('a maintainer removing an outsider’s label is not taken for the maintainer applying it', async () => {
    const { gate } = scripted({
      ...events(7, [labeled('triager', 0), unlabeled('maint', 1)]),
      [permissionPath('triager')]: role('read', 'triage'),
      [permissionPath('maint')]: role('write', 'maintain'),
      ...noEdits('I_7'),
    });
    expect(refusal(await gate().check(issue(7)))).toMatch(/applied by triager \(permission triage\)/);
  });

  it('another label applied by an outsider after the vouch does not revoke it (only a rename does)', async () => {
    const { gate } = scripted({
      ...events(7, [labeled('maint', 0), labeled('triager', 1, 'bug'), unlabeled('triager', 2)]),
      [permissionPath('maint')]: role('write', 'maintain'),
      [permissionPath('triager')]: role('read', 'triage'),
      ...noEdits('I_7'),
    });
    expect(await gate().check(issue(7))).toMatchObject({ trusted: true, by: 'maint' });
  });

  it('an events answer that is not a list fails the check, naming the issue', async () => {
    const { gate } = scripted({ [`${REPO}/issues/7/events`]: ok({ message: 'moved' }) });
    await expect(gate().check(issue(7))).rejects.toThrow(
      /read the events of #7 failed: .*expected an array of issue events/,
    );
  });
});

describe('trust gate: what GitHub answers about permissions', () => {
  it('the precise role wins over the coarse permission: a triager reads as triage, not read', async () => {
    const { gate } = scripted({
      ...events(7, [labeled('triager', 0)]),
      [permissionPath('triager')]: role('read', 'triage'),
    });
    expect(refusal(await gate().check(issue(7)))).toMatch(/applied by triager \(permission triage\)/);
    expect(await gate().permission('triager')).toBe('triage');
  });

  it('a writer whose answer has no role_name (older GitHub Enterprise) still vouches by the coarse permission', async () => {
    const { gate } = scripted({
      ...events(7, [labeled('maint', 0)]),
      [permissionPath('maint')]: ok({ permission: 'write' }),
      ...noEdits('I_7'),
    });
    expect(await gate().check(issue(7))).toEqual({ trusted: true, reason: 'labeled_by_writer', by: 'maint' });
  });

  it('an answer with neither field is no permission at all, not a vouch', async () => {
    const { gate } = scripted({ [permissionPath('odd')]: ok({}), [permissionPath('nil')]: ok(null) });
    expect(await gate().permission('odd')).toBe('none');
    expect(await gate().permission('nil')).toBe('none');
  });

  it('a permission lookup GitHub refuses (not a 404) fails the check instead of reading as none', async () => {
    const { gate } = scripted({
      ...events(7, [labeled('maint', 0)]),
      [permissionPath('maint')]: { status: 403, body: { message: 'Resource not accessible by integration' } },
    });
    await expect(gate().check(issue(7))).rejects.toThrow(/read the permission of maint failed/);
  });

  it('asks for a login’s permission once per gate, however many issues it labelled', async () => {
    const { gate, requests } = scripted({
      ...events(7, [labeled('maint', 0)]),
      ...events(8, [labeled('maint', 0)]),
      [permissionPath('maint')]: role('write'),
      ...noEdits('I_7', 'I_8'),
    });
    const decisions = await gate().checkAll([issue(7), issue(8)]);
    expect([...decisions.values()].map((d) => d.trusted)).toEqual([true, true]);
    expect(requests.filter((path) => path === permissionPath('maint'))).toHaveLength(1);
  });
});

describe('trust gate: the author alone', () => {
  it('a member’s issue is trusted by its author association, without a request', async () => {
    const { gate, requests } = scripted({});
    expect(await gate().check(issue(7, 'alice', 'MEMBER'))).toEqual({
      trusted: true,
      reason: 'author_association',
      by: 'alice',
    });
    expect(requests).toEqual([]);
  });

  it('a login in trusted_authors (any case) who wrote the issue makes it workable without a request', async () => {
    const { gate, requests } = scripted({});
    expect(await gate(['Release-Bot']).check(issue(7, 'release-bot'))).toEqual({
      trusted: true,
      reason: 'trusted_author',
      by: 'release-bot',
    });
    expect(requests).toEqual([]);
  });

  it('trusted_authors does not make every labeller trusted: an outsider’s own label is still refused', async () => {
    const { gate } = scripted({
      ...events(7, [labeled('drive-by', 0)]),
      [permissionPath('drive-by')]: role('read'),
    });
    expect(refusal(await gate(['release-bot']).check(issue(7)))).toMatch(
      /applied by drive-by \(permission read\)/,
    );
  });
});
