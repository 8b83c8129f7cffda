import { reply, type Script } from '../../../src/emulators/anthropic/index.js';
import type { ModelRuntime } from '../../../src/engines/native/session-agent.js';
import type { SandboxHost } from '../../../src/sandbox/sandbox-host.js';
import { emulated } from '../../github/emulated.js';
import { runIssueSession } from '../../helpers/world.js';
import type { SessionRepo } from '../../session/git/git-fixture.js';

/** The token the session's environment carries, which neither engine may see. */
export const SESSION_TOKEN = 'ghp_claudeCodeSession0123456789abcdefghij';
const GREETING_VERIFY = 'grep -q "\'hello\'" greet.js';

/** The native engine's model when `claude` fails: fixes greet.js's typo, then says it is done. */
export const fixGreeting: Script = (request) =>
  request.messages.length > 1
    ? reply.text('Fixed.')
    : reply.toolUse([
        {
          name: 'str_replace_based_edit_tool',
          input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
        },
      ]);

/**
 * One issue session on the Claude Code engine (a `claude` at `bin`, a fake or the real one), with the
 * native engine behind it on the scripted server; the harness verifies, commits and opens the PR on
 * the GitHub emulator as in a run.
 */
export async function claudeCodeIssueSession(options: {
  repo: SessionRepo;
  bin: string;
  claudeCode?: Record<string, unknown>;
  config?: Record<string, unknown>;
  /** What `claude` runs with besides the checkout's environment and the GitHub token. */
  env: Record<string, string>;
  /** The native engine's model. */
  native: Script;
  /** Where the agent's processes run: the default sandbox (bubblewrap) unless given. */
  sandbox?: SandboxHost;
  /** The native engine's model runtime, from the real one (to fail or interrupt its start). */
  models?: (real: ModelRuntime, controller: AbortController) => ModelRuntime;
}) {
  const gh = await emulated(options.repo.stateDir, {
    config: {
      verify: { command: GREETING_VERIFY },
      engine: 'claude-code',
      claude_code: { bin: options.bin, model: 'sonnet', ...options.claudeCode },
      ...options.config,
    },
  });
  const ran = await runIssueSession(
    { repo: options.repo, gh },
    {
      script: options.native,
      secrets: [SESSION_TOKEN],
      env: { ...options.env, GITHUB_TOKEN: SESSION_TOKEN },
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      ...(options.models ? { models: options.models } : {}),
    },
  );
  return { ...ran, gh };
}
