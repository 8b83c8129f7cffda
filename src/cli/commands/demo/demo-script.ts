import { reply } from '../../../emulators/anthropic/index.js';
import type {
  ParsedMessagesRequest,
  RequestMessage,
  Script,
  ScriptedReply,
} from '../../../emulators/anthropic/types.js';

/** What the scripted model does with an issue, chosen by the issue's number. */
export type DemoRole = 'fix' | 'break';

const EDIT_TOOL = 'str_replace_based_edit_tool';

function textOf(message: RequestMessage | undefined): string {
  return (message?.content ?? [])
    .flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []))
    .join('\n');
}

/** The issue number from the session's first user message, `Issue #<n>: <title>` by contract. */
function issueOf(request: ParsedMessagesRequest): number | undefined {
  const first = request.messages.find((message) => message.role === 'user');
  const match = /^Issue #(\d+):/m.exec(textOf(first));
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** Fixes the typo the way a careful agent would: look first, then the smallest edit. */
function fixTypo(turn: number): ScriptedReply {
  if (turn === 0) {
    return reply.toolUse(
      [{ name: EDIT_TOOL, input: { command: 'view', path: 'greet.js' } }],
      'Let me look at greet.js first.',
    );
  }
  if (turn === 1) {
    return reply.toolUse(
      [
        {
          name: EDIT_TOOL,
          input: { command: 'str_replace', path: 'greet.js', old_str: "'helo, ", new_str: "'hello, " },
        },
      ],
      'The greeting is misspelled; fixing it.',
    );
  }
  return reply.text('Fixed the typo in greet.js: greet() now says "hello".');
}

/** A follow-up of the PR whose check failed: the test the check asked for, then a summary. */
function addGreetingTest(turn: number): ScriptedReply {
  if (turn === 0) {
    return reply.toolUse(
      [
        {
          name: EDIT_TOOL,
          input: {
            command: 'str_replace',
            path: 'test.js',
            old_str: "assert.ok(greet('Ada').includes('Ada'));",
            new_str: "assert.equal(greet('Ada'), 'hello, Ada!');",
          },
        },
      ],
      'The check wants the whole greeting asserted; tightening the test.',
    );
  }
  return reply.text("test.js now asserts greet('Ada') === 'hello, Ada!'.");
}

/**
 * Rounds with toFixed, which returns a string: the project's tests catch it. Told so, the agent gives
 * up instead of guessing, so the harness — not the model's word — decides the issue failed.
 */
function breakTests(turn: number, last: string): ScriptedReply {
  if (last.includes('The harness ran')) {
    return reply.text(
      'toFixed() returns a string, so add(2, 3) is now "5.00" and the tests fail. Rounding to cents ' +
        'needs a decision about the return type that the issue does not make; leaving it to a human.',
    );
  }
  if (turn === 0) {
    return reply.toolUse(
      [
        {
          name: EDIT_TOOL,
          input: {
            command: 'str_replace',
            path: 'math.js',
            old_str: 'a + b;',
            new_str: '(a + b).toFixed(2);',
          },
        },
      ],
      'Rounding the sum to two decimals.',
    );
  }
  return reply.text('add() now rounds to cents.');
}

/**
 * The scripted model behind the demo: it recognises the issue from the first user message and how far
 * the conversation is from the number of its own earlier turns. Anything unscripted gets a plain
 * answer that changes nothing, so a deviation shows up as an unexpected outcome, not a hang.
 */
export function demoScript(roles: ReadonlyMap<number, DemoRole>): Script {
  return (request) => {
    const issue = issueOf(request);
    const role = issue === undefined ? undefined : roles.get(issue);
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    if (role === 'fix') {
      const first = textOf(request.messages.find((message) => message.role === 'user'));
      return first.includes('FAILING CHECK') ? addGreetingTest(turn) : fixTypo(turn);
    }
    if (role === 'break') return breakTests(turn, textOf(request.messages.at(-1)));
    return reply.text('(demo script: nothing scripted for this request)');
  };
}
