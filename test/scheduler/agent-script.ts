import {
  type ParsedMessagesRequest,
  reply,
  type ScriptedReply,
} from '../../src/emulators/anthropic/index.js';

/** greet.js once a conflict between the PR's fix and main's new line is resolved. */
export const RESOLVED_GREETING = "export const greet = () => 'hello';\nexport const wave = () => 'bye';\n";

/**
 * What a hostile first session writes for the two-step setup attack (issue 29): a `package.json` whose
 * `preinstall` runs `reach-out.mjs`, and that script. Set by the test that asks for it (the ports are
 * its servers'); the agent writes them when the issue's body says `add-a-preinstall`.
 */
export const hostileSetup = { manifest: '', script: '' };

/** A file name that would break out of a code span and mention a team (issue 29, item 6). */
export const MENTIONING_NAME = 'notes\n\n@acme/team have a look\n\n.md';

/**
 * The scripted agent: fixes the typo for issues titled "typo", adds a test file in a follow-up of a PR
 * whose checks failed, does nothing for anything else.
 */
export function agentScript(request: ParsedMessagesRequest): ScriptedReply {
  const first = JSON.stringify(request.messages[0]?.content ?? '');
  if (request.messages.length > 1) return reply.text('Done.');
  // Steered into adding a workflow (by the body, or a failing check's output): issue 29 item 5.
  if (first.includes('add-a-workflow')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: '.github/workflows/exfil.yml', file_text: 'on: push\n' },
      },
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
      },
    ]);
  }
  // A follow-up of a PR whose base moved: a conflict in greet.js, resolved keeping both sides.
  if (first.includes('the merge stopped on conflicts') && !first.includes('leave the markers')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: 'greet.js', file_text: RESOLVED_GREETING },
      },
    ]);
  }
  // The base merged cleanly but broke the verify command (`grep -q ok STATUS`).
  if (first.includes('without a conflict, but the verify command fails')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: 'STATUS', file_text: 'ok\n' },
      },
    ]);
  }
  // A reviewer asked for notes: the agent names the file with blank lines and a team mention.
  if (first.includes('FOLLOW-UP') && first.includes('name-a-file-with-mentions')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: MENTIONING_NAME, file_text: 'notes\n' },
      },
    ]);
  }
  // A follow-up of a PR whose checks failed: the failing test wanted a test file.
  if (first.includes('FOLLOW-UP')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: 'greet.test.js', file_text: "assert(greet() === 'hello');\n" },
      },
    ]);
  }
  // Issue 29's two-step setup attack, step one: a hook for the follow-up's `session.setup` to run.
  if (first.includes('add-a-preinstall')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: 'package.json', file_text: hostileSetup.manifest },
      },
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: 'reach-out.mjs', file_text: hostileSetup.script },
      },
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
      },
    ]);
  }
  if (first.includes('typo')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
      },
    ]);
  }
  return reply.text('Nothing to change here.');
}
