// Merged pull requests per dollar with best-of-N off and on (issue 32), side by side in one run.
// Each drain: runRounds in this process over BENCH_ISSUES trusted issues (default 12, to stay near a
// minute) on the GitHub emulator, a scripted model, real git on a temporary bare origin, a memory claim store, a real ledger; 3 workers,
// claims.max_failures 3, empty_rounds 1, verify `! grep -qs broken issue-*.txt` with no in-session
// retry (verify.retries 0), so every attempt is one draw. Arm A: attempts.n 1 (off); arm B: attempts.n 3.
// The scripted model writes issue-<n>.txt in its first call, "fixed" or "broken" by a seeded draw
// keyed by (scenario, p, issue, claim, attempt k): both arms draw the same numbers, arm B's attempt 1
// of a claim is arm A's draw for that claim. Every call costs the same fixed usage (a session call
// 15,000 input and 1,000 output tokens on the session model, the judge's call 6,000 and 150 on its
// model), so an attempt always costs the same; the judge's call is counted.
// Two scenarios; each says what it assumes about failures:
//   independent: every attempt fails with probability p, whatever failed before. Best-of-N buys no
//     better odds per attempt, only more attempts per claim (and a judge).
//   sticky: a first attempt fails with probability p; once it has, retrying the same way (every later
//     claim with best-of-N off, attempt 1 of a best-of-N claim) fails again with probability STICKY,
//     while the other parallel attempts (k >= 2) draw independently with p. This assumes parallel
//     attempts explore differently: each now ends its first message with its own direction
//     (prompts/attempt-directions.md) and every retry is told how the last attempt failed, the intent
//     this scenario models; the scripted model cannot measure their effect, so it is the case best-of-N
//     is built for, not a measured property of the model.
// After each drain the bench acts as the maintainer: it merges every open PR through the emulator,
// then counts from the ledger (`outcome` events' costUsd, which include each attempt and the judge;
// `attempts` events' judgeUsd; `needs_human` events) and the emulator (merged PRs, labels), not from
// issueloop's report code. Each drain must equal the same draws replayed without issueloop (merged,
// attempts, judge calls; bench/attempts-model.mjs), or the bench fails. K issues are a small sample:
// each arm also prints the closed-form expectation per issue, the figure to compare arms by. Env: BENCH_ISSUES (12), BENCH_P ("0.5,0.7"), BENCH_STICKY (0.9),
// BENCH_SEED (32), BENCH_SCENARIOS ("independent,sticky").
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

import { failureModel } from './attempts-model.mjs';
import { EMULATED_GITHUB, emulatedGitHubClient, issueRunContext, requireDist } from './lib.mjs';

requireDist('attempts', 'scheduler/run-attempts.js');
const { ConfigSchema } = await import('../dist/config/schema.js');
const { systemClock } = await import('../dist/core/clock.js');
const { costOf, priceOf } = await import('../dist/model/prices.js');
const { createAnthropicEmulator, reply } = await import('../dist/emulators/anthropic/index.js');
const { createGitHubEmulator } = await import('../dist/emulators/github/index.js');
const { runRounds } = await import('../dist/scheduler/run-rounds.js');
const { readLedger } = await import('../dist/session/ledger.js');
const { createScratchRepo, scratchGitEnv } = await import('../dist/emulators/scratch-repo.js');

const ISSUES = Number(process.env.BENCH_ISSUES ?? 12);
const PS = (process.env.BENCH_P ?? '0.5,0.7').split(',').map(Number);
const STICKY = Number(process.env.BENCH_STICKY ?? 0.9);
const SEED = process.env.BENCH_SEED ?? '32';
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'independent,sticky').split(',');
const WORKERS = 3;
const MAX_FAILURES = 3;
const N = 3;
const SESSION_USAGE = { input_tokens: 15_000, output_tokens: 1_000 };
const JUDGE_USAGE = { input_tokens: 6_000, output_tokens: 150 };
const VERIFY = '! grep -qs broken issue-*.txt';
const DEFAULTS = ConfigSchema.parse({ repo: 'octo-org/widgets' });
const usage = (u) => ({ input: u.input_tokens, output: u.output_tokens, cacheWrite: 0, cacheRead: 0 });
/** What an attempt (2 calls) and the judge's call cost at the built-in prices. */
const ATTEMPT_USD = 2 * costOf(usage(SESSION_USAGE), priceOf(DEFAULTS.model.primary));
const JUDGE_USD = costOf(
  usage(JUDGE_USAGE),
  priceOf(DEFAULTS.attempts.judge_model ?? DEFAULTS.model.diagnosis_model),
);
const { fails, replay, expected } = failureModel({
  seed: SEED,
  sticky: STICKY,
  maxFailures: MAX_FAILURES,
  issues: ISSUES,
});
const PROJECT = { 'README.md': '# widgets\n\nA small project.\n' };

for (const [name, value] of [
  ['BENCH_ISSUES', ISSUES],
  ['BENCH_STICKY', STICKY],
  ...PS.map((p) => ['BENCH_P', p]),
]) {
  const bad = name === 'BENCH_ISSUES' ? !Number.isInteger(value) || value < 1 : !(value >= 0 && value <= 1);
  if (bad) {
    console.error(
      `bench/attempts: ${name} is not valid (${value}): expected ${name === 'BENCH_ISSUES' ? 'a whole number >= 1' : 'a probability from 0 to 1 (BENCH_P: a comma-separated list)'}`,
    );
    process.exit(2);
  }
}
const unknown = SCENARIOS.filter((s) => s !== 'independent' && s !== 'sticky');
if (unknown.length > 0) {
  console.error(`bench/attempts: unknown BENCH_SCENARIOS ${unknown.join(', ')}: use independent, sticky`);
  process.exit(2);
}

/**
 * The scripted model of one drain: the first call of a session writes issue-<n>.txt (fixed or broken
 * by the draw), the second answers. The claim a session belongs to is counted from its branch: a
 * plain branch's j-th session is claim j; `-a<k>`'s j-th session is claim j + 1 (best-of-N comes
 * only after the first claim failed, and every attempt of a claim starts: no attempts.max_usd).
 */
function modelScript(scenario, p, drawn) {
  const seen = new Map();
  return (request) => {
    const system = JSON.stringify(request.system);
    if (system.includes('You compare candidate code changes')) return judgeAnswer(request);
    if (request.tools.length === 0) return reply.text('No diagnosis: the verify output says it.');
    const branch = /issueloop\/issue-(\d+)(?:-a(\d+))?/.exec(system);
    if (!branch) return reply.error(400, 'invalid_request_error', 'bench: no branch in the system prompt');
    if (request.messages.length > 1) return reply.text('Wrote the fix.');
    const issue = Number(branch[1]);
    const k = branch[2] === undefined ? 1 : Number(branch[2]);
    const count = (seen.get(branch[0]) ?? 0) + 1;
    seen.set(branch[0], count);
    const claim = branch[2] === undefined ? count : count + 1;
    const failed = fails(scenario, p, issue, claim, k);
    drawn.push({ issue, claim, k, failed });
    const text = failed ? `still broken (attempt ${k})\n` : `fixed by attempt ${k}\n`;
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: `issue-${issue}.txt`, file_text: text },
      },
    ]);
  };
}

/** The judge picks the first candidate it is shown (all verified ones are equally good here). */
function judgeAnswer(request) {
  const prompt = JSON.stringify(request.messages[0]?.content ?? '');
  const first = /Attempt (\d+) \(/.exec(prompt)?.[1] ?? '0';
  return reply.text(`{"choice": ${first}, "reason": "bench: the first verified candidate"}`);
}

/** The emulator's answers with a fixed usage per call, so costs do not depend on prompt size or cache. */
function fixedUsage(anthropic) {
  return async (input, init) => {
    const response = await anthropic.fetch(input, init);
    if (!String(input).endsWith('/v1/messages') || !response.ok) return response;
    if (!(response.headers.get('content-type') ?? '').includes('json'))
      throw new Error('bench: a streamed model call; fixedUsage only rewrites JSON answers');
    const message = await response.json();
    const judge = String(init?.body ?? '').includes('You compare candidate code changes');
    message.usage = { ...(judge ? JUDGE_USAGE : SESSION_USAGE) };
    return new Response(JSON.stringify(message), {
      status: response.status,
      headers: { 'content-type': 'application/json' },
    });
  };
}

async function drain({ root, env, scenario, p, n }) {
  const dir = join(root, `${scenario}-${p}-n${n}`);
  await mkdir(dir, { recursive: true });
  const repo = await createScratchRepo({
    root: dir,
    name: 'checkout',
    files: PROJECT,
    message: 'initial',
    env,
  });
  const emulator = createGitHubEmulator({
    baseUrl: EMULATED_GITHUB,
    rateLimit: { core: 100_000, graphql: 100_000 },
  });
  for (let i = 0; i < ISSUES; i += 1) {
    emulator.addIssue({
      title: `Issue ${i + 1}: the widget is broken`,
      body: 'Make issue-<n>.txt say it is fixed.\n',
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
    verify: { command: VERIFY, retries: 0 },
    claims: { max_failures: MAX_FAILURES },
    attempts: { n },
  });
  const drawn = [];
  const anthropic = createAnthropicEmulator({ script: modelScript(scenario, p, drawn) });
  const client = await emulatedGitHubClient(emulator, { clock: systemClock });
  const ctx = await issueRunContext({
    config,
    client,
    stateDir: join(dir, 'state'),
    checkout: repo.checkout,
    env,
    runId: `bench-attempts-n${n}`,
    modelFetch: fixedUsage(anthropic),
    anthropic,
  });
  const started = performance.now();
  const summary = await runRounds(ctx, { owner: 'bench:1' });
  const ms = performance.now() - started;
  await ctx.ledger.flush();

  // The maintainer merges every PR the run left open.
  for (const pull of emulator.pulls())
    if (pull.state === 'open') emulator.mergePull(pull.number, 'maintainer');
  const { events } = await readLedger(ctx.ledger.file);
  const of = (type) => events.filter((e) => e.type === type);
  const usd = of('outcome').reduce((sum, e) => sum + e.costUsd, 0);
  const judgeUsd = of('attempts').reduce((sum, e) => sum + e.judgeUsd, 0);
  const merged = emulator.pulls().filter((pull) => pull.merged_at);
  const needsHuman = new Set(of('needs_human').map((e) => e.issue));
  const labelled = Array.from({ length: ISSUES }, (_, i) => i + 1).filter((i) =>
    emulator.labelsOf(i).includes('issueloop:needs-human'),
  );
  const judgeCalls = of('attempts').filter((e) => e.judgeUsd > 0).length;
  const priced = drawn.length * ATTEMPT_USD + judgeCalls * JUDGE_USD;
  if (Math.abs(priced - usd) > 1e-6) {
    throw new Error(
      `${scenario} p=${p} n=${n}: the ledger's $${usd} is not ${drawn.length} attempts and ${judgeCalls} judge calls at their fixed price ($${priced})`,
    );
  }
  const stuck = ISSUES - merged.length - needsHuman.size;
  const replayed = replay(scenario, p, n);
  const got = { merged: merged.length, sessions: drawn.length, judges: judgeCalls };
  if (JSON.stringify(got) !== JSON.stringify(replayed)) {
    throw new Error(
      `${scenario} p=${p} n=${n}: the drain gave ${JSON.stringify(got)}, the same draws replayed ${JSON.stringify(replayed)}`,
    );
  }
  if (stuck !== 0 || labelled.length !== needsHuman.size) {
    throw new Error(
      `${scenario} p=${p} n=${n}: did not drain (stop ${summary.stop}): ${merged.length} merged, ${needsHuman.size} needs_human in the ledger, ${labelled.length} labelled needs-human, of ${ISSUES}`,
    );
  }
  return {
    merged: merged.length,
    usd,
    judgeUsd,
    sessions: drawn.length,
    judgeCalls,
    expected: expected(scenario, p, n),
    needsHuman: needsHuman.size,
    ms,
  };
}

const money = (usd) => `$${usd.toFixed(2)}`;
const row = (label, a, b) => `    ${label.padEnd(24)}${a.padStart(12)}${b.padStart(12)}`;

function print(a, b) {
  const perUsd = (r) => (r.usd > 0 ? r.merged / r.usd : 0);
  const perPr = (r) => (r.merged > 0 ? money(r.usd / r.merged) : 'none merged');
  const e = (r) => r.expected;
  const ePerUsd = (r) => e(r).merged / (e(r).sessions * ATTEMPT_USD + e(r).judges * JUDGE_USD);
  const percent = (x) => `${(x * 100).toFixed(1)}%`;
  console.log(row('', 'A: n=1', `B: n=${N}`));
  console.log(row('PRs merged', `${a.merged}/${ISSUES}`, `${b.merged}/${ISSUES}`));
  console.log(row('  expected per issue', percent(e(a).merged), percent(e(b).merged)));
  console.log(row('sessions (attempts)', String(a.sessions), String(b.sessions)));
  console.log(row('  expected per issue', e(a).sessions.toFixed(2), e(b).sessions.toFixed(2)));
  console.log(row('dollars spent', money(a.usd), money(b.usd)));
  console.log(row('  of which the judge', money(a.judgeUsd), money(b.judgeUsd)));
  console.log(row('  judge calls', String(a.judgeCalls), String(b.judgeCalls)));
  console.log(row('merged PRs per dollar', perUsd(a).toFixed(3), perUsd(b).toFixed(3)));
  console.log(row('  expected', ePerUsd(a).toFixed(3), ePerUsd(b).toFixed(3)));
  console.log(row('dollars per merged PR', perPr(a), perPr(b)));
  console.log(row('left needs-human', String(a.needsHuman), String(b.needsHuman)));
  console.log(row('wall time', `${(a.ms / 1000).toFixed(1)} s`, `${(b.ms / 1000).toFixed(1)} s`));
  const ratio = perUsd(a) > 0 ? perUsd(b) / perUsd(a) : Number.NaN;
  const expectedRatio = ePerUsd(b) / ePerUsd(a);
  const says = (x) => (x >= 1 ? 'best-of-N merges more per dollar' : 'best-of-N costs more per merged PR');
  console.log(
    `    merged per dollar B/A: ${ratio.toFixed(2)}x in this run (${says(ratio)}); expected ${expectedRatio.toFixed(2)}x (${says(expectedRatio)})`,
  );
}

const root = await mkdtemp(join(tmpdir(), 'issueloop-bench-attempts-'));
try {
  const env = await scratchGitEnv(root, {
    path: process.env.PATH ?? '/usr/bin:/bin',
    name: 'Bench Maintainer',
    email: 'maintainer@bench.example',
  });
  console.log(
    `bench/attempts: ${ISSUES} issues, ${WORKERS} workers, max_failures ${MAX_FAILURES}, best-of-N off (A) and n=${N} (B); p=${PS.join(', ')}, sticky ${STICKY}, seed ${SEED} (node ${process.version}, ${cpus().length} CPUs)`,
  );
  console.log(
    `  each attempt: 2 model calls of ${SESSION_USAGE.input_tokens} input + ${SESSION_USAGE.output_tokens} output tokens; the judge's call ${JUDGE_USAGE.input_tokens} + ${JUDGE_USAGE.output_tokens}`,
  );
  for (const scenario of SCENARIOS) {
    for (const p of PS) {
      const assumption =
        scenario === 'independent'
          ? `every attempt fails with p=${p}, independently`
          : `a first attempt fails with p=${p}; retrying the same way then fails with ${STICKY}, parallel attempts 2..${N} with p=${p}`;
      console.log(`[${scenario}, p=${p}] ${assumption}`);
      const a = await drain({ root, env, scenario, p, n: 1 });
      const b = await drain({ root, env, scenario, p, n: N });
      print(a, b);
    }
  }
} catch (err) {
  console.error(`bench/attempts: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  await rm(root, { recursive: true, force: true });
}
