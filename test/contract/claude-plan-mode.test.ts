import { expect, it } from 'vitest';
import { reply, scriptQueue } from '../../src/emulators/anthropic/index.js';
import { CLAUDE_CODE_VERSION, claudeHarness, contractSuite } from './real-claude.js';

/**
 * A plan session's `claude` call (plan mode, the reading tools, the writing ones denied) against the
 * real CLI, the model scripted to end as plan mode asks: by calling ExitPlanMode with its plan.
 * Headless, the pinned CLI neither offers nor runs that tool: it answers the call with an error, and
 * the model's next answer (here a bare "Plan submitted.") is the call's result. The plan is read
 * from the call's input in the stream.
 */
const { contract, call } = contractSuite('the Claude Code plan-mode contract');

const PLAN = 'Plan: change greet.js to say hello; check it with the existing test.';

contract(`plan mode on the real claude ${CLAUDE_CODE_VERSION} (contract)`, { timeout: 120_000 }, () => {
  it('an ExitPlanMode call is refused headless and the result is the sentence after it: the plan is read from the call', async () => {
    const refusals: string[] = [];
    const h = await claudeHarness({
      script: scriptQueue([
        () => reply.toolUse([{ name: 'ExitPlanMode', input: { plan: PLAN } }]),
        (request) => {
          for (const block of request.messages.flatMap((m) => m.content))
            if (block.type === 'tool_result') refusals.push(JSON.stringify(block.content));
          return reply.text('Plan submitted.');
        },
      ]),
    });
    const result = await call(h, 'Write a plan for the greeting typo.', {
      permissionMode: 'plan',
      allowedTools: ['Read', 'Glob', 'Grep'],
    });

    expect(result).toMatchObject({
      ok: true,
      text: 'Plan submitted.',
      plan: PLAN,
      modelCalls: 2,
      toolCalls: 1,
    });
    // What the CLI does with the call: it does not run it (nor ask), it says the tool is not there.
    expect(refusals).toEqual([expect.stringContaining('ExitPlanMode is disabled for this session')]);
    const init = JSON.parse(result.lines[0] ?? '{}') as { permissionMode?: string; tools?: string[] };
    expect(init.permissionMode).toBe('plan');
    expect(init.tools).toContain('Read');
    expect(init.tools).not.toContain('ExitPlanMode');
  });
});
