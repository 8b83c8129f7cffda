import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/core/random.js';
import { createRedactor } from '../../src/core/redact.js';
import {
  createAnthropicEmulator,
  reply,
  type ScriptedReply,
  scriptQueue,
} from '../../src/emulators/anthropic/index.js';
import type { BacklogIssue } from '../../src/github/issue-shape.js';
import { resolveOrigin } from '../../src/run/open-run.js';
import { openLedger, readLedger } from '../../src/session/ledger.js';
import { runSession } from '../../src/session/run-session.js';
import type { SessionInput } from '../../src/session/session-report.js';
import { issueWork } from '../../src/sources/issues/issue-work.js';
import { type Emulated, emulated } from '../github/emulated.js';
import { emulatedModels } from '../helpers/emulated-models.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { testSandboxHost } from '../helpers/sandbox.js';
import { useSessionRepo } from './git/git-fixture.js';

/**
 * Item 5 of issue 29: a change to a protected path is never delivered. Each case is a scripted agent
 * working through the real tools in the sandbox, on a real repository with a workflow of its own, and
 * the GitHub emulator; what origin holds afterwards is the evidence.
 */
const repo = useSessionRepo({
  'greet.js': "export const greet = () => 'helo';\n",
  '.github/workflows/ci.yml': 'on: push\njobs: {}\n',
});
let gh: Emulated;
beforeEach(async () => {
  gh = await emulated(repo.stateDir, { config: { verify: { command: 'true' } } });
});

const bash = (command: string) => reply.toolUse([{ name: 'bash', input: { command } }]);

async function session(replies: ScriptedReply[], overrides: Record<string, unknown> = {}) {
  const anthropic = createAnthropicEmulator({ script: scriptQueue([...replies, reply.text('Done.')]) });
  const clock = new FakeClock();
  const redact = createRedactor([]);
  const deps = { clock, random: createSeededRandom(7), log: createMemoryLog() };
  const number = gh.emulator.addIssue({
    title: 'Greeting typo',
    body: 'greet() says helo',
    author: 'octocat',
    authorAssociation: 'MEMBER',
    labels: ['issueloop'],
  });
  const config = { ...gh.config, ...overrides } as SessionInput['config'];
  const remote = await resolveOrigin(repo.fx.checkout, repo.fx.env, redact);
  const ledger = await openLedger({ stateDir: repo.stateDir, runId: 'paths', clock, redact });
  const report = await runSession({
    work: issueWork((await gh.adapter.issues.get(number)) as BacklogIssue, {
      github: gh.adapter,
      checkout: repo.fx.checkout,
      remote,
      baseBranch: 'main',
      config,
      redact,
    }),
    attempt: 1,
    checkout: repo.fx.checkout,
    worktreesDir: join(repo.stateDir, 'worktrees'),
    repo: 'octo-org/widgets',
    config,
    models: emulatedModels(anthropic, deps, redact),
    env: repo.fx.env,
    redact,
    deps,
    ledger,
    signal: new AbortController().signal,
    sandbox: await testSandboxHost(),
  });
  await ledger.flush();
  return { report, number, ledger, log: deps.log };
}

/** origin has no branch for the issue, and no pull request was opened. */
function expectNothingDelivered(number: number) {
  const refs = repo.fx.git(repo.fx.origin, 'for-each-ref', '--format=%(refname)');
  expect(refs.split('\n')).toEqual(['refs/heads/main']);
  expect(gh.emulator.pulls()).toEqual([]);
  expect(number).toBeGreaterThan(0);
}

describe('protected paths (a first attempt)', () => {
  it('a new workflow file (.github/workflows/exfil.yml) ends the session refused, naming it, needing a human; nothing is pushed', async () => {
    const { report, number, ledger } = await session([
      bash("sed -i s/helo/hello/ greet.js && printf 'on: push\\njobs: {}\\n' > .github/workflows/exfil.yml"),
    ]);
    expect(report.outcome).toBe('refused');
    expect(report.needsHuman).toBe(true);
    expect(report.reason).toContain('".github/workflows/exfil.yml"');
    expect(report.reason).toContain('nothing was committed or pushed');
    expectNothingDelivered(number);
    const { events } = await readLedger(ledger.file);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'protected_paths', count: 1, paths: ['.github/workflows/exfil.yml'] }),
    );
  });

  it('a rename into .github/workflows/ counts, and so does a rename out of it (both ends are named)', async () => {
    const into = await session([
      bash('mkdir -p .github/workflows && git mv greet.js .github/workflows/greet.yml'),
    ]);
    expect(into.report.outcome).toBe('refused');
    expect(into.report.reason).toContain('".github/workflows/greet.yml"');
    expectNothingDelivered(into.number);

    const out = await session([bash('mv .github/workflows/ci.yml ci.yml.bak')]);
    expect(out.report.outcome).toBe('refused');
    expect(out.report.reason).toContain('".github/workflows/ci.yml"');
  });

  it('.github replaced by a symlink, a symlink into .github, another case, and a name with line breaks all count', async () => {
    const cases: Array<[string, string]> = [
      ['rm -rf .github && mkdir elsewhere && ln -s elsewhere .github', '".github"'],
      ['ln -s .github/workflows/ci.yml ci-link.yml', '"ci-link.yml"'],
      ['mkdir -p .GitHub/Workflows && echo x > .GitHub/Workflows/x.yml', '".GitHub/Workflows/x.yml"'],
      [
        'touch "$(printf \'.github/workflows/a\\n\\n@team b.yml\')"',
        '".github/workflows/a\\u000a\\u000a@team b.yml"',
      ],
    ];
    for (const [command, named] of cases) {
      const { report, number } = await session([bash(command)]);
      expect({ command, outcome: report.outcome }).toEqual({ command, outcome: 'refused' });
      expect(report.reason).toContain(named);
      expect(report.reason).not.toContain('\n');
      expectNothingDelivered(number);
    }
  });

  it("protected_paths: ['infra/**'] refuses infra/x (and no longer protects workflows)", async () => {
    const infra = await session(
      [bash('mkdir infra && echo x > infra/x && echo y > .github/workflows/y.yml')],
      {
        protected_paths: ['infra/**'],
      },
    );
    expect(infra.report.outcome).toBe('refused');
    expect(infra.report.reason).toContain('protected paths changed: "infra/x";');
  });

  it("protected_paths: ['...', 'infra/**'] keeps the defaults and adds infra", async () => {
    const { report } = await session([bash('echo x > .github/workflows/x.yml')], {
      protected_paths: ['...', 'infra/**'],
    });
    expect(report.outcome).toBe('refused');
  });

  it('protected_paths: [] delivers a workflow change', async () => {
    const { report, number } = await session([bash('echo "# more" >> .github/workflows/ci.yml')], {
      protected_paths: [],
    });
    expect(report.outcome).toBe('resolved');
    expect(report.needsHuman).toBeUndefined();
    const branch = `issueloop/issue-${number}`;
    expect(repo.fx.git(repo.fx.origin, 'show', `${branch}:.github/workflows/ci.yml`)).toContain('# more');
  });

  it('a change elsewhere is delivered as before', async () => {
    const { report } = await session([
      bash('sed -i s/helo/hello/ greet.js && mkdir -p docs && echo x > docs/x.md'),
    ]);
    expect(report.outcome).toBe('resolved');
  });
});
