import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ParsedMessagesRequest, reply } from '../../src/emulators/anthropic/index.js';
import { PLAN_LABEL } from '../../src/github/labels.js';
import { planMarker } from '../../src/github/plan-comment.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { memberIssue } from '../helpers/world.js';
import { useRunFixture } from './run-fixture.js';

// Issue 32 item 2's scenario: an issue labelled issueloop:plan gets a plan first; an outsider's
// /approve is ignored; a writer's /revise gives a new plan from the old one and the request; a
// writer's /approve has the plan worked into a draft PR. Each `run` drains until a round is empty.

const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });

const ARGS = ['run', '-R', 'octo-org/widgets', '--set', 'poll_interval=1h', '--set', 'empty_rounds=1'];
const MORE = ['--set', 'verify.command=true', '--set', 'log_level=warn'];

const PLAN_A = 'Plan A: fix the typo in greet.js; check with the existing tests.';
const PLAN_B = 'Plan B: fix the typo in greet.js and add a test for greet().';

function textOf(request: ParsedMessagesRequest): string {
  return request.messages[0]?.content.map((b) => b.text ?? '').join('') ?? '';
}

/** Plan sessions answer with a plan; the implementation edits greet.js, then ends its turn. */
function scripted() {
  const firsts: Array<{ text: string; tools: string[] }> = [];
  const script = (request: ParsedMessagesRequest) => {
    const text = textOf(request);
    if (request.messages.length === 1) firsts.push({ text, tools: request.tools.map((t) => t.name) });
    if (text.includes('## Write a revised plan')) return reply.text(PLAN_B);
    if (text.includes('## Write a plan')) return reply.text(PLAN_A);
    if (request.messages.length > 1) return reply.text('Fixed the greeting.');
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
      },
    ]);
  };
  return { script, firsts };
}

async function ledgerEvents(checkout: string): Promise<Array<{ type: string; [k: string]: unknown }>> {
  const dir = join(checkout, '.issueloop', 'runs');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl')).sort();
  const texts = await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')));
  return texts.flatMap((t) =>
    t
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l)),
  );
}

/** Each run's ledger in the order the runs were made (their file names sort by second, then at random). */
function inRunOrder<T extends { type: string; ts?: unknown }>(events: T[]): T[] {
  return [...events].sort((a, b) => String(a.ts).localeCompare(String(b.ts)));
}

describe('a plan a maintainer approves (issue 32 item 2)', () => {
  it('plan comment, an outsider’s /approve ignored, a writer’s /revise, then /approve: the plan is worked into a draft PR', {
    timeout: 60_000,
  }, async () => {
    const gh = run.github;
    gh.setPermission('maintainer', 'maintain');
    gh.addUser('drive-by');
    gh.setPermission('drive-by', 'read');
    const issue = gh.addIssue(memberIssue('Fix the greeting', { labels: ['issueloop', PLAN_LABEL] }));
    const { script, firsts } = scripted();
    const { env } = await run.start(script);
    const drain = async () => {
      const result = await runInProcess([...ARGS, ...MORE], { cwd: run.fx.checkout, env });
      expect(result.code, result.stderr).toBe(0);
      return result;
    };
    const plans = () =>
      gh
        .comments(issue)
        .filter((c) => c.user.login === 'issueloop-bot' && c.body.startsWith(planMarker(issue)));
    const remoteBranches = () => run.fx.git(run.fx.origin, 'branch', '--list', 'issueloop/*').trim();

    // Round 1: the plan session reads only (the editor, no bash), and its plan is posted.
    await drain();
    expect(firsts).toHaveLength(1);
    expect(firsts[0]?.text).toContain(`Issue #${issue}: Fix the greeting`);
    expect(firsts[0]?.text).toContain('## Write a plan');
    expect(firsts[0]?.tools).toEqual(['str_replace_based_edit_tool']);
    expect(plans().map((c) => c.body)).toEqual([expect.stringContaining(PLAN_A)]);
    expect(plans()[0]?.body).toContain('`/approve`');
    expect(gh.pulls()).toEqual([]);
    expect(remoteBranches()).toBe('');

    // An outsider's /approve: no reaction, still waiting, no session.
    const outsider = gh.addComment(issue, { author: 'drive-by', body: '/approve' });
    await drain();
    expect(gh.reactions(outsider)).toEqual([]);
    expect(firsts).toHaveLength(1);
    const dryRun = await runInProcess(['run', '--dry-run', '-R', 'octo-org/widgets'], {
      cwd: run.fx.checkout,
      env,
    });
    expect(dryRun.stdout).toContain(
      `#${issue} Fix the greeting — its plan waits for a maintainer: /approve or /revise <what to change>`,
    );
    expect(gh.pulls()).toEqual([]);

    // A writer's /revise: a 👍, and a new plan from the old one and the request.
    const revise = gh.addComment(issue, { author: 'maintainer', body: '/revise add a test' });
    await drain();
    expect(gh.reactions(revise)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect(firsts).toHaveLength(2);
    expect(firsts[1]?.text).toContain('## Write a revised plan');
    expect(firsts[1]?.text).toContain(PLAN_A);
    expect(firsts[1]?.text).toContain('add a test');
    expect(plans().map((c) => c.body)).toEqual([
      expect.stringContaining(PLAN_A),
      expect.stringContaining(PLAN_B),
    ]);
    expect(gh.pulls()).toEqual([]);

    // A writer's /approve: the implementation is told the approved plan and opens a draft PR.
    const approve = gh.addComment(issue, { author: 'maintainer', body: '/approve' });
    await drain();
    expect(gh.reactions(approve)).toEqual([{ user: 'issueloop-bot', content: '+1' }]);
    expect(firsts).toHaveLength(3);
    expect(firsts[2]?.text).toContain('## The approved plan');
    expect(firsts[2]?.text).toContain(PLAN_B);
    expect(firsts[2]?.tools).toContain('bash');
    expect(gh.pulls().map((p) => [p.head.ref, p.draft])).toEqual([[`issueloop/issue-${issue}`, true]]);

    // Charged: the two plan sessions and the implementation, nothing while waiting.
    const events = inRunOrder(await ledgerEvents(run.fx.checkout));
    expect(events.filter((e) => e.type === 'outcome').map((e) => e.outcome)).toEqual([
      'plan_review',
      'plan_review',
      'resolved',
    ]);
    expect(events.filter((e) => e.type === 'claim')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'command').map((e) => e.command)).toEqual(['revise', 'approve']);
    const outcomes = JSON.parse(await readFile(join(run.fx.checkout, '.issueloop', 'outcomes.json'), 'utf8'));
    const sessions = outcomes.issues[String(issue)].sessions as Array<{ outcome: string; usd: number }>;
    expect(sessions.map((s) => s.outcome)).toEqual(['plan_review', 'plan_review', 'resolved']);
    expect(sessions.every((s) => s.usd > 0)).toBe(true);
  });
});
