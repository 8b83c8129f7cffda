import { describe, expect, it } from 'vitest';
import { readStatus, renderStatus } from '../../src/cli/commands/status.js';
import { renderRunSummary } from '../../src/run/run-summary.js';
import type { BlockedRequest } from '../../src/sandbox/blocked-requests.js';
import type { SandboxHost } from '../../src/sandbox/sandbox-host.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { member, roundsFixture, watched } from './rounds-fixture.js';

/**
 * Item 4 of issue 29, the reporting half: what a session's egress proxy refused is listed in the PR
 * body, the tracking comment, the ledger, `status` (human and --json) and the run summary. The
 * destinations come from a sandboxed process, so hostile ones are here: a backtick break-out, a team
 * mention, an HTML comment, line breaks, a bidi override, a closing keyword, a token in a host name.
 */
const { repo, setup } = roundsFixture();

const TOKEN = `ghp_${'S3cr3t'.repeat(6)}`;
const BLOCKED: BlockedRequest[] = [
  { role: 'setup', destination: 'registry.npmjs.org:443', count: 3 },
  { role: 'commands', destination: '[::1]:6379', count: 2 },
  {
    role: 'commands',
    destination: 'x`](https://evil.example) @octo-org/team <!-- closes #1\n\n# Hi:443',
    count: 1,
  },
  { role: 'claude', destination: `\u202eevil.example\u001b]0;owned\u0007:443`, count: 1 },
  { role: 'claude', destination: `${TOKEN}.attacker.example:443`, count: 1 },
];

/** The run's real sandbox, with a proxy that has refused BLOCKED. */
function refusingSandbox(host: SandboxHost): SandboxHost {
  return {
    mode: host.mode,
    forWorktree: async (view) => ({
      ...(await host.forWorktree(view)),
      blocked: () => BLOCKED.map((b) => ({ ...b })),
    }),
  };
}

/** What no hostile destination may leave behind in a text a person reads. */
function expectDefused(text: string) {
  expect(text).not.toContain('@octo-org/team');
  expect(text).not.toContain('<!-- closes');
  expect(text).not.toContain('closes #1');
  expect(text).not.toContain('](https://evil.example)');
  for (const c of ['\u202e', '\u001b', '\u0007']) expect(text).not.toContain(c);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain('# Hi');
}

describe('blocked network requests are reported', () => {
  it('in the PR body, the tracking comment, the ledger, status --json, status and the run summary; hostile destinations defused', {
    timeout: 30_000,
  }, async () => {
    const { gh, ctx } = await setup(watched());
    const issue = gh.emulator.addIssue(member('Fix the greeting typo'));
    const run = await runRounds(
      { ...ctx, sandbox: refusingSandbox(ctx.sandbox), redact: (t) => t.replaceAll(TOKEN, '[REDACTED]') },
      { owner: 'host:1' },
    );
    expect(run.reports.map((r) => r.outcome)).toEqual(['resolved']);

    const body = gh.emulator.pulls()[0]?.body ?? '';
    const section = body.slice(body.indexOf('## Blocked network requests'), body.indexOf('\n---\n'));
    expect(section.split('\n')).toEqual([
      '## Blocked network requests',
      '',
      'The sandbox refused these destinations during the session; if the work needs one of them, add its host to `sandbox.allow_domains` on purpose.',
      '',
      '- `registry.npmjs.org:443` ×3 (setup)',
      '- `[::1]:6379` ×2 (commands)',
      '- `x\\u{60}]\\u{28}https:\\u{2f}\\u{2f}evil.example\\u{29}\\u{20}\\u{40}octo-org\\u{2f}team\\u{20}\\u{3c}\\u{21}--\\u{20}closes\\u{20}\\u{23}1\\u{a}\\u{a}\\u{23}\\u{20}Hi:443` ×1 (commands)',
      '- `\\u{202e}evil.example\\u{1b}]0\\u{3b}owned\\u{7}:443` ×1 (claude)',
      '- `[REDACTED].attacker.example:443` ×1 (claude)',
      '',
    ]);
    expectDefused(body);

    const comment =
      gh.emulator.comments(issue).find((c) => c.body.includes('issueloop:tracking'))?.body ?? '';
    const row = comment.split('\n').find((line) => line.startsWith('| Blocked network requests |')) ?? '';
    expect(row).toContain('`registry.npmjs.org:443` ×3 (setup), `[::1]:6379` ×2 (commands)');
    expect(row).toContain('add its host to `sandbox.allow_domains` on purpose');
    // One row: nothing in it ends the cell or the line.
    expect(row.split(' | ')).toHaveLength(2);
    expectDefused(comment);

    await ctx.ledger.flush();
    const status = await readStatus(repo.stateDir, [], Date.now());
    const json = JSON.stringify(status);
    expect(status.lastRun?.issues[0]?.blockedRequests?.slice(0, 2)).toEqual([
      { role: 'setup', destination: 'registry.npmjs.org:443', count: 3 },
      { role: 'commands', destination: '[::1]:6379', count: 2 },
    ]);
    expect(status.lastRun?.issues[0]?.blockedRequests).toHaveLength(5);
    expectDefused(json);
    const human = renderStatus(status, Date.now());
    expect(human).toContain(`#${issue} registry.npmjs.org:443 ×3 (setup), [::1]:6379 ×2 (commands)`);
    expectDefused(human);

    const summary = renderRunSummary(run, undefined, ctx.ledger.file);
    expect(summary).toContain('blocked network requests (widen sandbox.allow_domains on purpose):');
    expect(summary).toContain(`#${issue} registry.npmjs.org:443 ×3 (setup)`);
    expectDefused(summary);
    // `run --json` prints the reports: they carry the cleaned text too.
    expectDefused(JSON.stringify(run.reports));
  });

  it('a session whose proxy refused nothing adds no section, row or line', { timeout: 30_000 }, async () => {
    const { gh, ctx } = await setup(watched());
    const issue = gh.emulator.addIssue(member('Fix the greeting typo'));
    const run = await runRounds(ctx, { owner: 'host:1' });
    expect(gh.emulator.pulls()[0]?.body).not.toContain('Blocked network requests');
    const comment = gh.emulator.comments(issue).find((c) => c.body.includes('issueloop:tracking'))?.body;
    expect(comment).not.toContain('Blocked network requests');
    expect(renderRunSummary(run, undefined, ctx.ledger.file)).not.toContain('blocked network requests');
  });
});
