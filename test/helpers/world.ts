import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createMemoryClaimStore } from '../../src/claims/memory-claim-store.js';
import type { Config } from '../../src/config/schema.js';
import { createSeededRandom } from '../../src/core/random.js';
import { createRedactor } from '../../src/core/redact.js';
import {
  createAnthropicEmulator,
  type QueuedReply,
  type Script,
  scriptQueue,
} from '../../src/emulators/anthropic/index.js';
import {
  createGitHubEmulator,
  type GitHubEmulator,
  type GitHubEmulatorOptions,
  type SeedIssue,
} from '../../src/emulators/github/index.js';
import type { ModelRuntime } from '../../src/engines/native/session-agent.js';
import type { BacklogIssue } from '../../src/github/issue-shape.js';
import type { TokenSource } from '../../src/github/token-source.js';
import { resolveOrigin } from '../../src/run/open-run.js';
import type { SandboxHost } from '../../src/sandbox/sandbox-host.js';
import { openLedger } from '../../src/session/ledger.js';
import { runSession } from '../../src/session/run-session.js';
import type { SessionInput } from '../../src/session/session-report.js';
import { issueWork } from '../../src/sources/issues/issue-work.js';
import { BASE, type Emulated, emulated } from '../github/emulated.js';
import { type SessionRepo, useSessionRepo } from '../session/git/git-fixture.js';
import { emulatedModels } from './emulated-models.js';
import { FakeClock } from './fake-clock.js';
import { createMemoryLog, type LogEntry } from './memory-log.js';
import { testSandboxHost } from './sandbox.js';

/**
 * The emulator worlds the tests run issues in: the GitHub emulator (test/github/emulated.ts), the
 * scripted Anthropic server, a real repository on a bare origin (test/session/git/git-fixture.ts) and
 * a state directory. Each test gets its own; nothing here is shared between tests.
 */

/** An issue by a member of octo-org, labelled for issueloop: what most worlds seed. */
export function memberIssue(title = 'Fix the greeting', more: Partial<SeedIssue> = {}): SeedIssue {
  return {
    title,
    body: 'please',
    author: 'octocat',
    authorAssociation: 'MEMBER',
    labels: ['issueloop'],
    ...more,
  };
}

/** The columns of issueloop's board, in order. */
export const BOARD_COLUMNS = ['Todo', 'In Progress', 'In Review', 'Done', 'Needs human'];

/**
 * The GitHub emulator with a Projects v2 board, "Backlog", of `columns` (issueloop's by default);
 * `config` points a run at it.
 */
export function boardEmulator(options: GitHubEmulatorOptions & { columns?: readonly string[] } = {}) {
  const { columns = BOARD_COLUMNS, ...emulatorOptions } = options;
  const emulator = createGitHubEmulator({ baseUrl: BASE, ...emulatorOptions });
  const project = emulator.addProject({ title: 'Backlog', statusOptions: [...columns] });
  const config = { project: { owner: 'octo-org', number: project.number } };
  /** The board's column of an issue (undefined while it is not on the board). */
  const statusOf = (issue: number) =>
    emulator.project(project.number)?.items.find((item) => item.issueNumber === issue)?.status;
  return { emulator, project, config, statusOf };
}

/** For each test: an empty state directory (its path), removed after the test. */
export function useStateDir(prefix = 'issueloop-world-'): { readonly path: string } {
  let path: string | undefined;
  beforeEach(async () => {
    path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (path) await rm(path, { recursive: true, force: true });
    path = undefined;
  });
  return {
    get path() {
      if (path === undefined) throw new Error('useStateDir used outside a test');
      return path;
    },
  };
}

/** A world whose sessions work on a real repository: the repository and GitHub on its state directory. */
export interface IssueWorld {
  readonly repo: SessionRepo;
  readonly gh: Emulated;
}

export interface IssueSessionOptions {
  /** The model's replies in order, or a whole script. */
  script: Script | readonly QueuedReply[];
  /** The seeded issue's title (by a member, labelled for issueloop). */
  title?: string;
  /** Works on this issue instead of seeding a new one. */
  issue?: BacklogIssue;
  /** Over the world's config, for this session alone (top-level keys replaced). */
  config?: Partial<Config>;
  /** What the session's redactor hides. */
  secrets?: readonly string[];
  /** Besides the checkout's git environment. */
  env?: Record<string, string>;
  /** Where origin's token comes from at each fetch and push (the environment's token unless given). */
  tokenSource?: TokenSource;
  /** The model runtime, from the one on the scripted server (to fail or interrupt it). */
  models?: (real: ModelRuntime, controller: AbortController) => ModelRuntime;
  /** The sandbox of the session's config (bubblewrap by default) unless given. */
  sandbox?: SandboxHost;
  /** The rest of the session's input: attempt, signal, onEvent... */
  input?: Partial<Omit<SessionInput, 'config' | 'models' | 'sandbox' | 'env'>>;
}

/**
 * One issue's session, as a run starts it: the issue seeded on the emulator (unless given), the
 * scripted model, a fake clock, the ledger of the state directory and the sandbox. Returns the
 * report and what a test looks into afterwards.
 */
export async function runIssueSession(world: IssueWorld, options: IssueSessionOptions) {
  const { repo, gh } = world;
  const script = typeof options.script === 'function' ? options.script : scriptQueue(options.script);
  const anthropic = createAnthropicEmulator({ script });
  const clock = new FakeClock();
  const redact = createRedactor([...(options.secrets ?? [])]);
  const deps = { clock, random: createSeededRandom(7), log: createMemoryLog() };
  const number =
    options.issue?.number ??
    gh.emulator.addIssue(memberIssue(options.title ?? 'Greeting typo', { body: 'greet() says helo' }));
  const issue = options.issue ?? ((await gh.adapter.issues.get(number)) as BacklogIssue);
  const config = { ...gh.config, ...options.config };
  const env = { ...repo.fx.env, ...options.env };
  const controller = new AbortController();
  const { signal, ...input } = options.input ?? {};
  signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  const models = emulatedModels(anthropic, deps, redact);
  const ledger = await openLedger({ stateDir: repo.stateDir, runId: 'session', clock, redact });
  const work = issueWork(issue, {
    github: gh.adapter,
    checkout: repo.fx.checkout,
    remote: await resolveOrigin(repo.fx.checkout, env, redact, options.tokenSource),
    baseBranch: 'main',
    config,
    redact,
  });
  const report = await runSession({
    work,
    attempt: 1,
    checkout: repo.fx.checkout,
    worktreesDir: join(repo.stateDir, 'worktrees'),
    repo: 'octo-org/widgets',
    config,
    models: options.models ? options.models(models, controller) : models,
    env,
    redact,
    deps,
    ledger,
    signal: controller.signal,
    sandbox: options.sandbox ?? (await testSandboxHost(config.sandbox)),
    ...input,
  });
  await ledger.flush();
  return { report, anthropic, number, ledger, log: deps.log, config };
}

/**
 * For each test: a repository whose origin's main has `files`, and the GitHub emulator on its state
 * directory with `config`; `session()` runs one issue's session in it.
 */
export function useIssueWorld(files: Record<string, string>, config: Record<string, unknown> = {}) {
  const repo = useSessionRepo(files);
  let gh: Emulated | undefined;
  beforeEach(async () => {
    gh = await emulated(repo.stateDir, { config });
  });
  const world: IssueWorld & { session(options: IssueSessionOptions): ReturnType<typeof runIssueSession> } = {
    repo,
    get gh() {
      if (gh === undefined) throw new Error('useIssueWorld used outside a test');
      return gh;
    },
    session: (options) => runIssueSession(world, options),
  };
  return world;
}

/** Runs git on the world's origin (the bare repository standing in for GitHub's). */
export function originGit(repo: SessionRepo): (...args: string[]) => string {
  return (...args) => repo.fx.git(repo.fx.root, '--git-dir', repo.fx.origin, ...args);
}

/** Whether origin has the issue's branch, `issueloop/issue-<n>`. */
export function pushedBranch(repo: SessionRepo, number: number): boolean {
  const refs = originGit(repo)('for-each-ref', '--format=%(refname)', `refs/heads/issueloop/issue-${number}`);
  return refs !== '';
}

/**
 * An issue issueloop resolved, on the GitHub emulator in `stateDir`: its claim released `resolved`
 * (in a memory claim store on `clock`), its draft PR open on `issueloop/issue-<n>`.
 */
export async function resolvedPullWorld(
  stateDir: string,
  options: { config?: Record<string, unknown>; emulator?: GitHubEmulator; clock?: FakeClock } = {},
) {
  const gh = await emulated(stateDir, {
    config: options.config ?? {},
    ...(options.emulator ? { emulator: options.emulator } : {}),
  });
  const { emulator } = gh;
  const issue = emulator.addIssue(memberIssue());
  const clock = options.clock ?? new FakeClock(Date.UTC(2026, 10, 25));
  const claims = createMemoryClaimStore({ clock, maxFailures: 3 });
  const claimed = await claims.claim(issue, 'host:1', 60_000);
  if (!claimed.ok) throw new Error('setup: claim refused');
  await claims.release(claimed.lease, { outcome: 'resolved' });
  const branch = `issueloop/issue-${issue}`;
  const pr = await gh.adapter.pulls.openOrUpdate({
    branch,
    title: 'Fix the greeting',
    body: `Closes #${issue}`,
    base: 'main',
  });
  const ledger: Array<[string, Record<string, unknown>]> = [];
  const log: LogEntry[] = [];
  return { gh, emulator, issue, pr, branch, claims, clock, ledger, log };
}
