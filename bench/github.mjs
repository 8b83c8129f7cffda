// Charged GitHub requests, counted by the client against the in-process emulator:
//  1. one idle round over a 1,000-issue backlog (900 issues by members, 100 by outsiders that a
//     maintainer labelled, so the trust gate reads their events and the maintainer's permission,
//     and asks GraphQL who last edited their bodies): the first round, then a second round from a
//     new process on the same state directory (target: 0 REST requests charged after the first
//     round, everything answered by 304s; GraphQL has no conditional requests: one query, 1 point,
//     per 100 label-vouched issues);
//  2. one issue's whole lifecycle, as the scheduler and session will drive it: board In Progress,
//     in-progress label, tracking comment, draft PR, tracking comment with the PR link, board In
//     Review, label removed, issue and PR read back (target <= 12, GraphQL included).
// The board ids, the default branch and issueloop's own labels are resolved in the first round,
// as a run does.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { EMULATED_GITHUB, emulatedGitHubClient, requireDist } from './lib.mjs';

requireDist('github', 'github/adapter.js');
const { openGitHubAdapter } = await import('../dist/github/adapter.js');
const { issueBranch } = await import('../dist/github/pulls.js');
const { emptyTrackingRecord } = await import('../dist/github/tracking-comment.js');
const { ConfigSchema } = await import('../dist/config/schema.js');
const { createGitHubEmulator } = await import('../dist/emulators/github/index.js');

const clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
const emulator = createGitHubEmulator({
  baseUrl: EMULATED_GITHUB,
  rateLimit: { core: 100_000, graphql: 100_000 },
});
emulator.addUser('maintainer');
emulator.setPermission('maintainer', 'write');
let outsiders = 0;
for (let i = 0; i < 1000; i += 1) {
  const outsider = i % 10 === 9;
  if (outsider) {
    emulator.addUser(`user${i}`);
    outsiders += 1;
  }
  emulator.addIssue({
    title: `Issue ${i}`,
    body: `Body of issue ${i}\n`.repeat(20),
    author: outsider ? `user${i}` : 'maintainer',
    authorAssociation: outsider ? 'NONE' : 'MEMBER',
    labels: ['issueloop'],
    labeledBy: 'maintainer',
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  });
}
const { number: projectNumber } = emulator.addProject({
  title: 'Backlog',
  statusOptions: ['Todo', 'In Progress', 'In Review', 'Done', 'Needs human'],
});
const config = ConfigSchema.parse({
  repo: 'octo-org/widgets',
  project: { owner: 'octo-org', number: projectNumber },
});
const stateDir = await mkdtemp(join(tmpdir(), 'issueloop-bench-github-'));

const client = () => emulatedGitHubClient(emulator, { clock });

async function round(adapter) {
  const backlog = await adapter.listBacklog();
  const decisions = await adapter.trustGate().checkAll(backlog.issues);
  const trusted = [...decisions.values()].filter((d) => d.trusted).length;
  await adapter.flush();
  return { issues: backlog.issues.length, trusted, pages: backlog.pages };
}

const first = await openGitHubAdapter(await client(), config, { stateDir });
const r1 = await round(first);
await first.board.resolve();
// The run reads the default branch once (its worktrees start from it); later reads are 304s.
await first.pulls.defaultBranch();
for (const label of ['issueloop:in-progress', 'issueloop:needs-human']) await first.labels.ensureLabel(label);
await first.flush();
const firstCharged = first.client.metrics.charged;

const second = await openGitHubAdapter(await client(), config, { stateDir });
const r2 = await round(second);
const idle = second.client.metrics;

// One issue's lifecycle, from the second process (board ids and label checks already cached).
const life = await openGitHubAdapter(await client(), config, { stateDir });
await life.labels.ensureLabel('issueloop:in-progress');
const [issue] = (await life.listBacklog()).issues;
const before = life.client.metrics.charged;
const record = emptyTrackingRecord(new Date().toISOString());
await life.board.setStatus(issue, 'working');
await life.labels.addLabels(issue.number, ['issueloop:in-progress']);
await life.tracking.upsert(issue.number, {
  phase: 'working',
  attempt: 1,
  model: 'claude-sonnet-5-5',
  record,
});
const pr = await life.pulls.openOrUpdate({
  branch: issueBranch(issue.number),
  title: `Fix #${issue.number}: ${issue.title}`,
  body: `Closes #${issue.number}`,
});
await life.tracking.upsert(issue.number, {
  phase: 'review',
  attempt: 1,
  prUrl: pr.url,
  costUsd: 0.5,
  record,
});
await life.board.setStatus(issue, 'review');
await life.labels.removeLabel(issue.number, 'issueloop:in-progress');
const { owner, name } = life.client.repo;
await life.client.call('read back', () =>
  life.client.rest.issues.get({ owner, repo: name, issue_number: issue.number }),
);
await life.pulls.get(pr.number);
const lifecycle = life.client.metrics.charged - before;
const lifecycleGraphql = life.client.metrics.graphql;

console.log(`bench/github: backlog of ${r1.issues} issues (${r1.trusted} trusted, ${r1.pages} pages)`);
console.log(`  first round:  ${firstCharged} charged requests (board resolved, labels checked)`);
const idleRest = idle.charged - idle.graphql;
const graphqlTarget = Math.ceil(outsiders / 100);
console.log(
  `  idle round:   ${idleRest} REST charged, ${idle.uncharged} answered by 304 (target 0 charged) ${idleRest === 0 ? 'ok' : 'OVER TARGET'}; ${idle.graphql} GraphQL (the body-edit check, target ${graphqlTarget}) ${idle.graphql <= graphqlTarget ? 'ok' : 'OVER TARGET'}`,
);
console.log(
  `  one issue, claim to PR to In Review: ${lifecycle} charged requests, ${lifecycleGraphql} of them GraphQL (target <= 12) ${lifecycle <= 12 ? 'ok' : 'OVER TARGET'}`,
);
if (r2.trusted !== r1.trusted)
  console.log('  WARNING: the second round trusted a different number of issues');
await rm(stateDir, { recursive: true, force: true });
