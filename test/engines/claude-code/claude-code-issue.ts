import { join } from 'node:path';
import { createSeededRandom } from '../../../src/core/random.js';
import { createRedactor } from '../../../src/core/redact.js';
import { createAnthropicEmulator, type Script } from '../../../src/emulators/anthropic/index.js';
import type { createModelRuntime } from '../../../src/engines/native/model-runtime.js';
import type { BacklogIssue } from '../../../src/github/issue-shape.js';
import type { SandboxHost } from '../../../src/sandbox/sandbox-host.js';
import { openLedger } from '../../../src/session/ledger.js';
import { runSession } from '../../../src/session/run-session.js';
import { issueWork } from '../../../src/sources/issues/issue-work.js';
import { emulated } from '../../github/emulated.js';
import { emulatedModels } from '../../helpers/emulated-models.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLog } from '../../helpers/memory-log.js';
import { testSandboxHost } from '../../helpers/sandbox.js';
import type { GitFixture } from '../../session/git/git-fixture.js';

/** The token the session's environment carries, which neither engine may see. */
export const SESSION_TOKEN = 'ghp_claudeCodeSession0123456789abcdefghij';
const GREETING_VERIFY = 'grep -q "\'hello\'" greet.js';

type Models = ReturnType<typeof createModelRuntime>;

/**
 * One issue session on the Claude Code engine (a `claude` at `bin`, a fake or the real one), with the
 * native engine behind it on the scripted server; the harness verifies, commits and opens the PR on
 * the GitHub emulator as in a run.
 */
export async function claudeCodeIssueSession(options: {
  repo: { fx: GitFixture; stateDir: string };
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
  models?: (real: Models, controller: AbortController) => Models;
}) {
  const { repo } = options;
  const gh = await emulated(repo.stateDir, {
    config: {
      verify: { command: GREETING_VERIFY },
      engine: 'claude-code',
      claude_code: { bin: options.bin, model: 'sonnet', ...options.claudeCode },
      ...options.config,
    },
  });
  const number = gh.emulator.addIssue({
    title: 'Greeting typo',
    body: 'greet() says helo',
    author: 'octocat',
    authorAssociation: 'MEMBER',
    labels: ['issueloop'],
  });
  const clock = new FakeClock();
  const redact = createRedactor([SESSION_TOKEN]);
  const deps = { clock, random: createSeededRandom(3), log: createMemoryLog() };
  const ledger = await openLedger({ stateDir: repo.stateDir, runId: 'cc', clock, redact });
  const controller = new AbortController();
  const models = emulatedModels(createAnthropicEmulator({ script: options.native }), deps, redact);
  const report = await runSession({
    work: issueWork((await gh.adapter.issues.get(number)) as BacklogIssue, {
      github: gh.adapter,
      checkout: repo.fx.checkout,
      remote: 'origin',
      baseBranch: 'main',
      config: gh.config,
      redact,
    }),
    attempt: 1,
    checkout: repo.fx.checkout,
    worktreesDir: join(repo.stateDir, 'worktrees'),
    repo: 'octo-org/widgets',
    config: gh.config,
    models: options.models ? options.models(models, controller) : models,
    env: { ...repo.fx.env, ...options.env, GITHUB_TOKEN: SESSION_TOKEN },
    sandbox: options.sandbox ?? (await testSandboxHost()),
    redact,
    deps,
    ledger,
    signal: controller.signal,
  });
  await ledger.flush();
  return { report, gh, ledger, number, log: deps.log };
}
