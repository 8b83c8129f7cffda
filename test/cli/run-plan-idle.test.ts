import { describe, expect, it } from 'vitest';
import { type ParsedMessagesRequest, reply } from '../../src/emulators/anthropic/index.js';
import type { EmulatorRequest } from '../../src/emulators/github/index.js';
import { PLAN_LABEL } from '../../src/github/labels.js';
import { planMarker } from '../../src/github/plan-comment.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { useRunFixture } from './run-fixture.js';

// Issue 32: a plan that waits for a maintainer costs nothing while it waits, trust included.

const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });

const ARGS = ['run', '-R', 'octo-org/widgets', '--set', 'poll_interval=1h', '--set', 'empty_rounds=1'];
const MORE = ['--set', 'verify.command=true', '--set', 'log_level=warn'];

/** The requests the trust gate makes for an issue a writer labelled: its events, a permission, body edits. */
const isTrustRead = (issue: number) => (r: EmulatorRequest) =>
  r.path.includes(`/issues/${issue}/events`) ||
  r.path.includes('/permission') ||
  r.operationName?.toLowerCase().includes('edit') === true;

describe('a waiting plan in an idle round', () => {
  it('regression: an idle round with a waiting plan makes no trust request (no events, no permission read)', {
    timeout: 60_000,
  }, async () => {
    const gh = run.github;
    gh.setPermission('maintainer', 'maintain');
    // An outsider's issue a writer labelled: its trust costs the events and the labeller's permission.
    gh.addUser('reporter');
    const issue = gh.addIssue({
      title: 'Fix the greeting',
      body: 'please',
      author: 'reporter',
      authorAssociation: 'NONE',
      labels: ['issueloop', PLAN_LABEL],
      labeledBy: 'maintainer',
    });
    const script = (request: ParsedMessagesRequest) =>
      reply.text(request.messages.length === 1 ? 'Plan: fix the typo in greet.js.' : 'Done.');
    const { env } = await run.start(script);
    const drain = async () => {
      const result = await runInProcess([...ARGS, ...MORE], { cwd: run.fx.checkout, env });
      expect(result.code, result.stderr).toBe(0);
    };

    // The plan round reads the issue's trust (the measure below is of something that is read).
    await drain();
    expect(gh.comments(issue).filter((c) => c.body.startsWith(planMarker(issue)))).toHaveLength(1);
    expect(gh.requests.filter(isTrustRead(issue)).length).toBeGreaterThan(0);

    // An idle round while the plan waits: the backlog and the comments are read, trust is not.
    gh.resetRequests();
    await drain();
    expect(gh.requests.some((r) => r.method === 'GET' && r.path.includes('/issues?'))).toBe(true);
    expect(gh.requests.some((r) => r.path.includes('/issues/comments'))).toBe(true);
    expect(gh.requests.filter(isTrustRead(issue)).map((r) => r.path)).toEqual([]);
  });
});
