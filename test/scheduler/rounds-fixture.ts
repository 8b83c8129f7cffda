import { join } from 'node:path';
import type { ClaimsFile } from '../../src/claims/claims-schema.js';
import { createClaimStore } from '../../src/claims/create-claim-store.js';
import { createMemoryBackend } from '../../src/claims/memory-claim-store.js';
import { createSeededRandom } from '../../src/core/random.js';
import { createRedactor } from '../../src/core/redact.js';
import { createAnthropicEmulator } from '../../src/emulators/anthropic/index.js';
import { createGitHubEmulator, type GitHubEmulator } from '../../src/emulators/github/index.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import type { WorkContext } from '../../src/scheduler/work-item.js';
import { openLedger } from '../../src/session/ledger.js';
import { createIssueSource } from '../../src/sources/issues/issue-source.js';
import type { IssueSourceOptions } from '../../src/sources/issues/options.js';
import { BASE, emulated } from '../github/emulated.js';
import { emulatedModels } from '../helpers/emulated-models.js';
import { type EmulatorTape, recordRequests, replayRequests } from '../helpers/emulator-tape.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { testSandboxHost } from '../helpers/sandbox.js';
import { memberIssue } from '../helpers/world.js';
import { GREETING_TYPO, useStableSessionRepo } from '../session/git/git-fixture.js';
import { agentScript } from './agent-script.js';

export { agentScript, RESOLVED_GREETING } from './agent-script.js';

/**
 * Whole issue runs in one process for the scheduler's tests: a real checkout with a greeting typo on
 * a bare origin, the GitHub emulator, the scripted agent, a memory claim store and a ledger. Call it
 * at the top of a test file: it registers the repository's hooks.
 */
export function roundsFixture() {
  const repo = useStableSessionRepo(GREETING_TYPO);
  const templates = new Map<string, ResolvedTemplate>();

  async function setup(
    config: Record<string, unknown> = {},
    emulator?: GitHubEmulator,
    clock = new FakeClock(),
    claimsFile?: ClaimsFile,
  ) {
    const gh = await emulated(repo.stateDir, {
      // One attempt per claim unless a test is about best-of-N (it sets `attempts`): with the default
      // of three, every retry after a failed verify in these tests ran three sessions (run-rounds took
      // 18 → 27 s).
      config: {
        verify: { command: 'grep -q "\'hello\'" greet.js' },
        empty_rounds: 2,
        attempts: { n: 1 },
        ...config,
      },
      ...(emulator ? { emulator } : {}),
    });
    const anthropic = createAnthropicEmulator({ script: agentScript });
    const log = createMemoryLog();
    const redact = createRedactor([]);
    const deps = { clock, random: createSeededRandom(4), log };
    const backend = createMemoryBackend(claimsFile);
    const claims = createClaimStore(backend, { clock, maxFailures: gh.config.claims.max_failures });
    const ledger = await openLedger({ stateDir: repo.stateDir, runId: 'r', clock, redact });
    /** A run's view of GitHub; a new runner has its own (nothing read yet). */
    /** An issue source over the fixture's world; `extra` adds or replaces options (an outcome store …). */
    const newSource = (extra: Partial<IssueSourceOptions> = {}) =>
      createIssueSource({
        github: gh.adapter,
        config: gh.config,
        redact,
        checkout: repo.fx.checkout,
        remote: 'origin',
        baseBranch: 'main',
        log,
        clock,
        ...extra,
      });
    const ctx: WorkContext = {
      config: gh.config,
      source: newSource(),
      claims,
      deps,
      ledger,
      signal: new AbortController().signal,
      checkout: repo.fx.checkout,
      worktreesDir: join(repo.stateDir, 'worktrees'),
      repo: 'octo-org/widgets',
      models: emulatedModels(anthropic, deps, redact),
      env: repo.fx.env,
      redact,
      sandbox: await testSandboxHost(),
    };
    /** The same models, with each request first passed through `gate` (to hold a session's model call). */
    const gatedModels = (gate: (body: string) => Promise<void>) =>
      emulatedModels(
        {
          ...anthropic,
          fetch: async (input, init) => {
            await gate(String(init?.body ?? ''));
            return anthropic.fetch(input, init);
          },
        },
        deps,
        redact,
      );
    /** The same models, answered by `answer` instead when it returns a response (a revoked key). */
    const answeredModels = (answer: () => Response | Error | undefined) =>
      emulatedModels(
        {
          ...anthropic,
          fetch: async (input, init) => {
            const answered = answer();
            if (answered instanceof Error) throw answered;
            return answered ?? anthropic.fetch(input, init);
          },
        },
        deps,
        redact,
      );
    const saveClaims = () => backend.read();
    return { gh, ctx, claims, saveClaims, ledger, clock, log, newSource, gatedModels, answeredModels };
  }

  /**
   * The state a first run leaves, the issue it resolved (its PR open): run once per file for each
   * `spec.key` (and main of origin), then put back for each test that asks again, as a copy of the
   * repositories and state directory, the emulator's requests replayed, the claims and clock restored.
   */
  async function resolvedOnce(spec: ResolvedSpec) {
    // Commits differ in their dates from test to test: main is known by its tree and length.
    const { git, origin } = repo.fx;
    const main = [git(origin, 'rev-parse', 'main^{tree}'), git(origin, 'rev-list', '--count', 'main')];
    const key = JSON.stringify([spec.key, spec.config, main]);
    const saved = templates.get(key);
    const emulator = spec.emulator();
    if (saved) {
      repo.restore(saved.snapshot);
      const issue = spec.seed(emulator);
      await replayRequests(emulator, saved.tape);
      const fixture = await setup(spec.config, emulator, new FakeClock(saved.now), saved.claims);
      return { ...fixture, emulator, issue };
    }
    const recording = recordRequests(emulator);
    const fixture = await setup(spec.config, emulator);
    const issue = spec.seed(emulator);
    if (recording.tape().requests.length > 0) throw new Error('setup: requests before the seeding');
    const first = await runRounds(fixture.ctx, { owner: 'host:1' });
    if (first.reports.map((r) => r.outcome).join() !== 'resolved') {
      throw new Error(`setup: the first run did not resolve the issue: ${JSON.stringify(first.reports)}`);
    }
    await fixture.ctx.ledger.flush();
    await fixture.gh.adapter.flush();
    templates.set(key, {
      snapshot: repo.snapshot(),
      tape: recording.tape(),
      now: fixture.clock.now(),
      claims: await fixture.saveClaims(),
    });
    return { ...fixture, emulator, issue };
  }

  /**
   * A resolved issue (its draft PR open) on an emulator that reads the real branches of the fixture's
   * origin, with `failCheck` to fail a check on the PR's head. `body` is the issue's.
   */
  async function resolvedWithRealRefs(config: Record<string, unknown> = {}, body = 'please') {
    const fixture = await resolvedOnce({
      key: ['real refs', body],
      config: watched(config),
      emulator: () => createGitHubEmulator({ baseUrl: BASE, origin: repo.fx.origin }),
      seed: (emulator) => emulator.addIssue({ ...member('Fix the greeting typo'), body }),
    });
    const { emulator, issue } = fixture;
    const pr = emulator.pulls().find((p) => p.head.ref === `issueloop/issue-${issue}`);
    if (!pr) throw new Error('setup: no pull request');
    const branch = `issueloop/issue-${issue}`;
    const failCheck = () =>
      emulator.addCheckRun({
        ref: branch,
        name: 'test',
        status: 'completed',
        conclusion: 'failure',
        output: { title: '1 test failed', summary: 'no test covers greet()' },
        annotations: [
          {
            path: 'greet.js',
            start_line: 1,
            end_line: 1,
            annotation_level: 'failure',
            message: 'greet() is untested',
          },
        ],
        log: '2026-11-25T10:00:00.0000000Z > npm test\n2026-11-25T10:00:01.0000000Z Error: no test file for greet.js\n',
      });
    return { ...fixture, pr, branch, failCheck };
  }

  /** Commits `files` on origin's main, as a maintainer merging other work would; returns the new tip. */
  function moveMain(files: Record<string, string>, message: string): string {
    const { seed } = repo.fx;
    repo.fx.git(seed, 'fetch', '--quiet', 'origin');
    repo.fx.git(seed, 'checkout', '--quiet', '-B', 'main', 'origin/main');
    const sha = repo.fx.commitFiles(seed, files, message);
    repo.fx.git(seed, 'push', '--quiet', 'origin', 'HEAD:main');
    return sha;
  }

  return { repo, setup, resolvedOnce, resolvedWithRealRefs, moveMain };
}

/** What a first run starts from: config, emulator and seeding; `key` names all else that differs. */
export interface ResolvedSpec {
  key: unknown;
  config: Record<string, unknown>;
  emulator(): GitHubEmulator;
  /** Seeds the emulator before the run; returns the issue the run resolves. */
  seed(emulator: GitHubEmulator): number;
}

interface ResolvedTemplate {
  snapshot: string;
  tape: EmulatorTape;
  now: number;
  claims: ClaimsFile;
}

/**
 * The run's config for the pull request tests: one empty round ends a run, and every round looks at
 * the PRs (`pr.watch_interval: 0s`; the clock here does not move between runs).
 */
export function watched(config: { pr?: Record<string, unknown> } & Record<string, unknown> = {}) {
  return { empty_rounds: 1, ...config, pr: { watch_interval: '0s', ...config.pr } };
}

/** A fake clock that moves only when a test advances it. */
/**
 * For runs whose sessions outlast many rounds: on the fake clock a free worker's polls pass at once,
 * so rounds go on while a session runs and fake time races ahead of its lease keeper; under load the
 * 30-minute lease lapsed between renewals and the issue was claimed twice. A day's lease cannot.
 */
export const LONG_LEASE = { claims: { ttl: '24h' } } as const;

export const manualClock = () => new FakeClock(Date.UTC(2026, 10, 21, 12, 0, 0), false);

export { until } from '../helpers/until.js';

/** An issue by a member, labelled for issueloop. */
export const member = memberIssue;
