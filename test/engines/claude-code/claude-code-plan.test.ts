import { describe, expect, it } from 'vitest';
import { reply } from '../../../src/emulators/anthropic/index.js';
import { planMarker } from '../../../src/github/plan-comment.js';
import { GREETING_TYPO, useSessionRepo } from '../../session/git/git-fixture.js';
import { claudeCodeIssueSession } from './claude-code-issue.js';
import { FAKE_CLAUDE, fakeClaude, resultJson } from './fake-claude.js';

const repo = useSessionRepo(GREETING_TYPO);

const PLAN = 'Plan: change greet.js to say hello; check with the existing test.';

/** The flag's value in a `claude` call's arguments (undefined when the flag is absent). */
function flag(args: readonly string[] | undefined, name: string): string | undefined {
  const at = args?.indexOf(name) ?? -1;
  return at === -1 ? undefined : args?.[at + 1];
}

describe('a plan session on the Claude Code engine (issue 32 item 2)', () => {
  it('claude runs in plan mode with only Read, Glob and Grep, and its answer is posted as the plan', async () => {
    const fake = await fakeClaude([{ stdout: resultJson({ result: PLAN }) }]);
    const { report, gh, number } = await claudeCodeIssueSession({
      repo,
      bin: FAKE_CLAUDE,
      config: { plan: { required: true } },
      env: fake.env,
      native: () => reply.text('the native engine is not used'),
    });
    expect(report.outcome).toBe('plan_review');
    const [call, ...more] = await fake.calls();
    expect(more).toEqual([]);
    expect(flag(call?.args, '--permission-mode')).toBe('plan');
    expect(flag(call?.args, '--allowedTools')).toBe('Read,Glob,Grep');
    expect(call?.prompt).toContain('## Write a plan');
    // Claude Code's own plan mode asks for a plan file and ExitPlanMode, which a headless plan session
    // cannot use (Write is denied, ExitPlanMode is not offered): the prompt says where the plan goes.
    expect(call?.prompt).toContain('Write no plan file');
    expect(call?.prompt).toContain('the final message is the plan');
    const plans = gh.emulator.comments(number).filter((c) => c.body.startsWith(planMarker(number)));
    expect(plans.map((c) => c.body)).toEqual([expect.stringContaining(PLAN)]);
    expect(gh.emulator.pulls()).toEqual([]);
  });

  it('regression: the plan the model gave ExitPlanMode is posted, not the sentence claude ended with after it', async () => {
    const usage = { input_tokens: 100, output_tokens: 20 };
    const fake = await fakeClaude([
      {
        stdout: resultJson({ result: 'Plan submitted.' }),
        responses: [
          {
            usage,
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'ExitPlanMode', input: { plan: PLAN } }],
          },
          { usage, content: [{ type: 'text', text: 'Plan submitted.' }] },
        ],
      },
    ]);
    const { report, gh, number } = await claudeCodeIssueSession({
      repo,
      bin: FAKE_CLAUDE,
      config: { plan: { required: true } },
      env: fake.env,
      native: () => reply.text('the native engine is not used'),
    });
    expect(report.outcome).toBe('plan_review');
    const plans = gh.emulator.comments(number).filter((c) => c.body.startsWith(planMarker(number)));
    expect(plans.map((c) => c.body)).toEqual([expect.stringContaining(PLAN)]);
    expect(plans[0]?.body).not.toContain('Plan submitted.');
  });

  it('an issue that needs no plan runs with the configured mode and the editing tools (the anchor)', async () => {
    const fake = await fakeClaude([
      { stdout: resultJson(), write: { file: 'greet.js', content: "export const greet = () => 'hello';\n" } },
    ]);
    const { report } = await claudeCodeIssueSession({
      repo,
      bin: FAKE_CLAUDE,
      env: fake.env,
      native: () => reply.text('the native engine is not used'),
    });
    expect(report.outcome).toBe('resolved');
    const [call] = await fake.calls();
    expect(flag(call?.args, '--permission-mode')).toBe('acceptEdits');
    expect(flag(call?.args, '--allowedTools')).toBe('Bash,Read,Edit,Write,Glob,Grep');
  });
});
