// Part 3 of bench/round.mjs, in a fresh process so its RSS is not the leftover of the 20-issue run:
// the first round over a 10,000-issue backlog. The backlog is listed through the GitHub adapter from
// the in-process emulator (100 pages), with claims for 1,000 of the issues (250 leased, 250 with one
// failure, 250 needing a human after 3 failures, 250 interrupted) and trust read for all the rest;
// then planRound is timed, median of 5. Prints one JSON line.
// Usage: node --expose-gc round-worker.mjs <state-dir>
import { CLAIMS_FORMAT_VERSION } from '../dist/claims/claims-schema.js';
import { createMemoryClaimStore } from '../dist/claims/memory-claim-store.js';
import { ConfigSchema } from '../dist/config/schema.js';
import { createGitHubEmulator } from '../dist/emulators/github/index.js';
import { openGitHubAdapter } from '../dist/github/adapter.js';
import { readTrust } from '../dist/sources/issues/issue-source.js';
import { planRound } from '../dist/sources/issues/plan-issues.js';
import { EMULATED_GITHUB, emulatedGitHubClient } from './lib.mjs';

const ISSUES = 10_000;
const CLAIMED_EVERY = 10;
const stateDir = process.argv[2];
const clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
// Run with --expose-gc: collected before each reading, so the figures are what the data retains.
const memory = () => {
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heap: heapUsed };
};
const ms = () => performance.now();

const atStart = memory();
const emulator = createGitHubEmulator({
  baseUrl: EMULATED_GITHUB,
  rateLimit: { core: 100_000, graphql: 100_000 },
});
for (let i = 0; i < ISSUES; i += 1) {
  emulator.addIssue({
    title: `Issue ${i}: the parser drops the last token`,
    body: `Steps to reproduce issue ${i}.\n`.repeat(10),
    author: 'octocat',
    authorAssociation: 'MEMBER',
    labels: ['issueloop'],
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  });
}
const seeded = memory();

const config = ConfigSchema.parse({
  repo: 'octo-org/widgets',
  workers: 1,
  empty_rounds: 1,
  poll_interval: '1s',
});
const adapter = await openGitHubAdapter(await emulatedGitHubClient(emulator, { clock }), config, {
  stateDir,
});

let started = ms();
const backlog = await adapter.listBacklog();
const listMs = ms() - started;

// Claims as the claims file holds them after earlier rounds.
const now = Date.now();
const iso = (offset) => new Date(now + offset).toISOString();
const failure = (n) =>
  Array.from({ length: n }, (_, k) => ({
    at: iso(-3_600_000 + k * 60_000),
    error_class: 'verify_failed',
    message: '`npm test` failed (exit 1)',
  }));
const issues = {};
let token = 1;
for (const issue of backlog.issues) {
  if (issue.number % CLAIMED_EVERY !== 0) continue;
  const kind = (issue.number / CLAIMED_EVERY) % 4;
  const failures = kind === 1 ? 1 : kind === 2 ? 3 : 0;
  issues[issue.number] = {
    issue: issue.number,
    lease:
      kind === 0
        ? {
            issue: issue.number,
            owner: 'other-host:4242',
            token,
            claimed_at: iso(-60_000),
            expires_at: iso(29 * 60_000),
            ttl_ms: 30 * 60_000,
          }
        : null,
    failure_count: failures,
    last_failure_at: failures > 0 ? iso(-60_000) : null,
    failure_reasons: failure(failures),
    attempts: Math.max(1, failures),
    last_outcome: kind === 3 ? 'interrupted' : failures > 0 ? 'verify_failed' : null,
    interrupted_at: kind === 3 ? iso(-120_000) : null,
    partial_context: kind === 3 ? 'Edited src/parser.ts; the tests were next.' : null,
    hint: null,
  };
  token += 1;
}
const claims = createMemoryClaimStore(
  { clock, maxFailures: config.claims.max_failures },
  { version: CLAIMS_FORMAT_VERSION, next_token: token, issues },
);

started = ms();
const claimViews = new Map((await claims.list()).map((view) => [view.issue, view]));
const claimsMs = ms() - started;
started = ms();
const trust = await readTrust({ github: adapter }, backlog, claimViews, now);
const trustMs = ms() - started;
const withData = memory();

const times = [];
let plan;
for (let run = 0; run < 5; run += 1) {
  started = ms();
  plan = planRound({ issues: backlog.issues, claims: claimViews, trust, now });
  times.push(ms() - started);
}
times.sort((a, b) => a - b);
const skipped = {};
for (const { reason } of plan.skipped) skipped[reason.kind] = (skipped[reason.kind] ?? 0) + 1;

process.stdout.write(
  `${JSON.stringify({
    issues: backlog.issues.length,
    pages: backlog.pages,
    claims: claimViews.size,
    trusted: [...trust.values()].filter((t) => t.trusted).length,
    candidates: plan.candidates.length,
    firstCandidate: plan.candidates[0]?.number,
    skipped,
    listMs,
    claimsMs,
    trustMs,
    planMs: times[2],
    planTimes: times,
    rssStart: atStart.rss,
    rssSeeded: seeded.rss,
    rssData: withData.rss,
    heapStart: atStart.heap,
    heapSeeded: seeded.heap,
    heapData: withData.heap,
  })}\n`,
);
