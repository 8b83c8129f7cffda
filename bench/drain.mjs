// How fast a mixed backlog drains, measured in one run, side by side:
//   12 issues, 4 workers; one slow session (4 model calls of 10 s) for every three quick ones (4 calls
//   of 2.5 s): 40 s and 10 s of model time, the mix the scheduler's issue measured; the in-process
//   GitHub emulator with a Projects board and writes paced 50 ms apart (GitHub asks 1 s, against
//   sessions of minutes); real git on a bare origin; a memory claim store. About three minutes.
//   1. work-conserving rounds (the scheduler): a free worker claims as soon as a session ends;
//   2. rounds as barriers (`barrier: true`, the scheduler before): every round waits for its slowest.
// Prints each makespan, the bound max(model time / workers, paced writes × spacing) and their ratio
// (target <= 1.25x for the scheduler), the least any scheduler claiming in this order needs with these
// very sessions (list scheduling, nothing between sessions), and the paced writes per resolved issue
// (target <= 6): REST requests other than GET, and GraphQL mutations.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

import { EMULATED_GITHUB, emulatedGitHubClient, issueRunContext, requireDist } from './lib.mjs';

requireDist('drain', 'scheduler/run-rounds.js');
const { ConfigSchema } = await import('../dist/config/schema.js');
const { systemClock } = await import('../dist/core/clock.js');
const { createAnthropicEmulator, reply } = await import('../dist/emulators/anthropic/index.js');
const { createGitHubEmulator } = await import('../dist/emulators/github/index.js');
const { runRounds } = await import('../dist/scheduler/run-rounds.js');
const { createScratchRepo, scratchGitEnv } = await import('../dist/emulators/scratch-repo.js');

const ISSUES = Number(process.env.DRAIN_ISSUES ?? 12);
const WORKERS = 4;
const CALLS = 4;
// 1: the issue's 40 s and 10 s sessions; DRAIN_SCALE=0.4 drains in a third of the time, where the
// harness's own time per session (git, GitHub writes: about 0.3 s) weighs 2.5 times as much.
const SCALE = Number(process.env.DRAIN_SCALE ?? 1);
const SLOW_CALL_MS = 10_000 * SCALE;
const QUICK_CALL_MS = 2_500 * SCALE;
const SPACING_MS = 50;
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const slow = (i) => i % 4 === 0;

/** Each session: CALLS - 1 tool calls creating and viewing its file, then the answer. */
function sessionScript(request) {
  const first = JSON.stringify(request.messages[0]?.content ?? '');
  const issue = /Issue #(\d+)/.exec(first)?.[1];
  if (issue === undefined) return reply.error(400, 'invalid_request_error', 'bench: no issue number');
  const step = (request.messages.length - 1) / 2;
  const file = `issue-${issue}.txt`;
  const edit = (input) => ({ name: 'str_replace_based_edit_tool', input });
  if (step === 0) return reply.toolUse([edit({ command: 'create', path: file, file_text: `#${issue}\n` })]);
  if (step < CALLS - 1) return reply.toolUse([edit({ command: 'view', path: file })]);
  return reply.text(`Added ${file}.`);
}

/** The model's think time, on messages only: the issue's title says whether its session is slow. */
function delayed(anthropic) {
  return async (input, init) => {
    if (!String(input).endsWith('/v1/messages')) return anthropic.fetch(input, init);
    const body = String(init?.body ?? '');
    const ms = body.includes('(slow)') ? SLOW_CALL_MS : QUICK_CALL_MS;
    await new Promise((resolve) => setTimeout(resolve, ms));
    return anthropic.fetch(input, init);
  };
}

function isPacedWrite(request) {
  if (request.path.startsWith('/graphql')) {
    const query = String(request.body?.query ?? '');
    return /^\s*mutation\b/.test(query);
  }
  return request.method !== 'GET' && request.method !== 'HEAD';
}

async function drain(root, env, barrier) {
  const own = join(root, barrier ? 'barrier' : 'pool');
  await mkdir(own);
  const repo = await createScratchRepo({
    root: own,
    name: 'checkout',
    files: { 'README.md': '# widgets\n' },
    message: 'initial',
    env,
  });
  const emulator = createGitHubEmulator({
    baseUrl: EMULATED_GITHUB,
    rateLimit: { core: 100_000, graphql: 100_000 },
  });
  const project = emulator.addProject({
    title: 'Backlog',
    statusOptions: ['Todo', 'In Progress', 'In Review', 'Done', 'Needs human'],
  });
  for (let i = 0; i < ISSUES; i += 1) {
    emulator.addIssue({
      title: `Issue ${i + 1} ${slow(i) ? '(slow)' : '(quick)'}`,
      body: 'Please fix.\n',
      author: 'octocat',
      authorAssociation: 'MEMBER',
      labels: ['issueloop'],
    });
  }
  const config = ConfigSchema.parse({
    repo: 'octo-org/widgets',
    workers: WORKERS,
    empty_rounds: 1,
    poll_interval: '1s',
    project: { owner: 'octo-org', number: project.number },
  });
  const stateDir = join(root, `state-${barrier ? 'barrier' : 'pool'}`);
  const client = await emulatedGitHubClient(emulator, { clock: systemClock, writeSpacingMs: SPACING_MS });
  const anthropic = createAnthropicEmulator({ script: sessionScript });
  const ctx = await issueRunContext({
    config,
    client,
    stateDir,
    checkout: repo.checkout,
    env,
    runId: 'bench-drain',
    modelFetch: delayed(anthropic),
    anthropic,
  });
  const started = performance.now();
  const summary = await runRounds(ctx, { owner: 'bench:1', barrier });
  const ms = performance.now() - started;
  await ctx.ledger.flush();
  const resolved = summary.reports.filter((r) => r.outcome === 'resolved').length;
  if (resolved !== ISSUES) {
    throw new Error(
      `${barrier ? 'barrier' : 'pool'}: ${resolved} of ${ISSUES} resolved (${summary.reports.map((r) => `#${r.issue} ${r.outcome}: ${r.reason}`).join('; ')})`,
    );
  }
  const writes = emulator.requests.filter(isPacedWrite);
  const byKind = {};
  for (const w of writes) {
    const kind = w.path.startsWith('/graphql')
      ? `graphql ${w.operationName ?? 'mutation'}`
      : `${w.method} ${w.path.replace(/\d+/g, 'N').split('?')[0]}`;
    byKind[kind] = (byKind[kind] ?? 0) + 1;
  }
  const graphqlReads = emulator.requests.filter(
    (r) => r.path.startsWith('/graphql') && !isPacedWrite(r),
  ).length;
  // What a session spends besides the model: worktree, git, the PR and its GitHub writes.
  const overheadMs =
    summary.reports.reduce(
      (sum, r) => sum + r.durationMs - CALLS * (slow(r.issue - 1) ? SLOW_CALL_MS : QUICK_CALL_MS),
      0,
    ) / ISSUES;
  // The best any scheduler that claims in this order can do with these very sessions: each one to
  // the worker that is free first (list scheduling), no time between sessions.
  const free = Array.from({ length: WORKERS }, () => 0);
  for (const r of [...summary.reports].sort((a, b) => a.issue - b.issue)) {
    const at = free.indexOf(Math.min(...free));
    free[at] += r.durationMs;
  }
  const listMs = Math.max(...free);
  return { ms, rounds: summary.rounds, writes: writes.length, byKind, graphqlReads, overheadMs, listMs };
}

const root = await mkdtemp(join(tmpdir(), 'issueloop-bench-drain-'));
try {
  const env = await scratchGitEnv(root, {
    path: process.env.PATH ?? '/usr/bin:/bin',
    name: 'Bench Maintainer',
    email: 'maintainer@bench.example',
  });
  const modelMs = Array.from(
    { length: ISSUES },
    (_, i) => CALLS * (slow(i) ? SLOW_CALL_MS : QUICK_CALL_MS),
  ).reduce((a, b) => a + b, 0);
  console.log(
    `bench/drain: ${ISSUES} issues, ${WORKERS} workers, ${CALLS} model calls each (${ISSUES / 4} slow at ${seconds(SLOW_CALL_MS)}, the rest at ${seconds(QUICK_CALL_MS)} a call), writes paced ${SPACING_MS} ms apart (node ${process.version}, ${cpus().length} CPUs)`,
  );
  for (const barrier of [false, true]) {
    const r = await drain(root, env, barrier);
    const bound = Math.max(modelMs / WORKERS, r.writes * SPACING_MS);
    const name = barrier ? 'rounds as barriers (before)' : 'work-conserving rounds';
    console.log(
      `  ${name.padEnd(28)} makespan ${seconds(r.ms)}, bound ${seconds(bound)} (model ${seconds(modelMs / WORKERS)} per worker, writes ${seconds(r.writes * SPACING_MS)}): ratio ${(r.ms / bound).toFixed(2)}x; ${r.rounds} rounds; paced writes per resolved issue ${(r.writes / ISSUES).toFixed(1)} (${r.graphqlReads} GraphQL reads); a session's own overhead ${seconds(r.overheadMs)}; in claim order these sessions need at least ${seconds(r.listMs)} (${(r.ms / r.listMs).toFixed(2)}x)`,
    );
    if (!barrier) {
      const kinds = Object.entries(r.byKind)
        .sort((a, b) => b[1] - a[1])
        .map(([kind, n]) => `${kind} ×${(n / ISSUES).toFixed(1)}`)
        .join(', ');
      console.log(`    writes per issue: ${kinds}`);
    }
  }
} catch (err) {
  console.error(`bench/drain: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await rm(root, { recursive: true, force: true });
}
