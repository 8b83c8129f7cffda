// A whole run against the git work it cannot avoid, measured in one run:
//  1. runRounds in this process over 20 trusted issues: the in-process GitHub emulator, an instant
//     scripted model (each session: 4 model calls, 5 tool calls — 4 str_replace_based_edit_tool
//     views and creates, 1 bash `true` — creating issue-<n>.txt), real git against a temporary bare
//     origin and checkout, a memory claim store, a real ledger, a silent logger, the system clock;
//     every issue must end `resolved` with a draft PR. Prints its wall time and the peak RSS.
//  2. The bare git work of 20 sessions with the same functions from dist/: per branch fetchBranch,
//     addWorktree, one file written, changedFiles, commitAll, remoteBranchSha, pushBranch (a new
//     branch), removeWorktree. Prints the overhead ratio (run / bare git).
//  3. The first round of a 10,000-issue backlog (listed through the emulator's listBacklog), with
//     claims for 1,000 of them and trust for all: planRound time (median of 5) and the RSS the data
//     adds, measured in a fresh process (bench/round-worker.mjs) so part 1's heap does not blur it.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { EMULATED_GITHUB, emulatedGitHubClient, issueRunContext, requireDist } from './lib.mjs';

requireDist('round', 'scheduler/run-rounds.js');
const { ConfigSchema } = await import('../dist/config/schema.js');
const { systemClock } = await import('../dist/core/clock.js');
const { createRedactor } = await import('../dist/core/redact.js');
const { createAnthropicEmulator, reply } = await import('../dist/emulators/anthropic/index.js');
const { createGitHubEmulator } = await import('../dist/emulators/github/index.js');
const { runRounds } = await import('../dist/scheduler/run-rounds.js');
const git = await import('../dist/session/git/index.js');
const { createScratchRepo, scratchGitEnv } = await import('../dist/emulators/scratch-repo.js');

const ISSUES = 20;
const TOOL_CALLS = 5;
const worker = fileURLToPath(new URL('./round-worker.mjs', import.meta.url));
const MiB = 1024 * 1024;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const count = (n) => n.toLocaleString('en-US');
const PROJECT = {
  'README.md': '# widgets\n\nA small project.\n',
  'src/parser.js': 'export const parse = (line) => line.split(/\\s+/);\n',
  'src/app.js': "import { parse } from './parser.js';\nconsole.log(parse(process.argv[2] ?? ''));\n",
};

/**
 * Each session: 3 model calls with 5 tool calls between them, then a final answer. Stateless: the
 * issue comes from the first message, the step from the conversation's length.
 */
function sessionScript(request) {
  const first = JSON.stringify(request.messages[0]?.content ?? '');
  const issue = /Issue #(\d+)/.exec(first)?.[1];
  if (issue === undefined) return reply.error(400, 'invalid_request_error', 'bench: no issue number');
  const file = `issue-${issue}.txt`;
  const edit = (input) => ({ name: 'str_replace_based_edit_tool', input });
  switch ((request.messages.length - 1) / 2) {
    case 0:
      return reply.toolUse(
        [edit({ command: 'view', path: 'README.md' }), edit({ command: 'view', path: 'src' })],
        'Reading the project first.',
      );
    case 1:
      return reply.toolUse(
        [
          edit({ command: 'create', path: file, file_text: `Fixed issue #${issue}.\n` }),
          edit({ command: 'view', path: file }),
        ],
        'Writing the fix.',
      );
    case 2:
      return reply.toolUse([{ name: 'bash', input: { command: 'true' } }], 'Checking it runs.');
    default:
      return reply.text(`Added ${file}.`);
  }
}

async function measureRun(root, repo, env) {
  const emulator = createGitHubEmulator({
    baseUrl: EMULATED_GITHUB,
    rateLimit: { core: 100_000, graphql: 100_000 },
  });
  for (let i = 0; i < ISSUES; i += 1) {
    emulator.addIssue({
      title: `Issue ${i + 1}: the parser drops the last token`,
      body: 'Steps to reproduce: run `node src/app.js "a b"`.\n',
      author: 'octocat',
      authorAssociation: 'MEMBER',
      labels: ['issueloop'],
    });
  }
  const config = ConfigSchema.parse({
    repo: 'octo-org/widgets',
    workers: 1,
    empty_rounds: 1,
    poll_interval: '1s',
  });
  const stateDir = join(root, 'state');
  const client = await emulatedGitHubClient(emulator, { clock: systemClock });
  const anthropic = createAnthropicEmulator({ script: sessionScript });
  const ctx = await issueRunContext({
    config,
    client,
    stateDir,
    checkout: repo.checkout,
    env,
    runId: 'bench-round',
    modelFetch: anthropic.fetch,
    anthropic,
  });
  const started = performance.now();
  const summary = await runRounds(ctx, { owner: 'bench:1' });
  const ms = performance.now() - started;
  await ctx.ledger.flush();
  const wrong = summary.reports.filter((r) => r.outcome !== 'resolved' || r.toolCalls !== TOOL_CALLS);
  if (summary.reports.length !== ISSUES || wrong.length > 0 || emulator.pulls().length !== ISSUES) {
    const seen = summary.reports.map(
      (r) => `#${r.issue} ${r.outcome} (${r.toolCalls} tool calls): ${r.reason}`,
    );
    throw new Error(
      `the run did not resolve all ${ISSUES} issues with ${TOOL_CALLS} tool calls each (stop ${summary.stop}, ${emulator.pulls().length} PRs):\n  ${seen.join('\n  ')}`,
    );
  }
  return {
    ms,
    rounds: summary.rounds,
    modelCalls: summary.reports.reduce((n, r) => n + r.modelCalls, 0),
    githubRequests: emulator.requests.length,
    author: config.pr.author,
  };
}

/** What 20 sessions must do with git, and nothing else. */
async function measureBareGit(root, repo, env, author) {
  const options = { env, redact: createRedactor([]) };
  const { checkout } = repo;
  const one = async (i) => {
    const branch = `bench/bare-${i}`;
    const worktree = join(root, 'bare-worktrees', `issue-${i}`);
    const base = await git.fetchBranch(checkout, 'origin', 'main', options);
    await git.addWorktree({ checkout, path: worktree, branch, startPoint: base }, options);
    await writeFile(join(worktree, `issue-${i}.txt`), `Fixed issue #${i}.\n`);
    if ((await git.changedFiles(worktree, options)).length !== 1)
      throw new Error(`bare git: ${branch} has no diff`);
    await git.commitAll(worktree, { message: `Fix #${i}\n\nCloses #${i}`, author }, options);
    const expected = await git.remoteBranchSha(checkout, 'origin', branch, options);
    await git.pushBranch(worktree, { remote: 'origin', branch, expectedRemoteSha: expected }, options);
    await git.removeWorktree(checkout, worktree, options);
  };
  await one(0); // warm-up: the git binary and its libraries in the page cache, like the run had them
  const started = performance.now();
  for (let i = 1; i <= ISSUES; i += 1) await one(i);
  return performance.now() - started;
}

function measureSelection(stateDir) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', worker, stateDir],
      { maxBuffer: 16 * MiB },
      (err, stdout, stderr) =>
        err ? reject(new Error(`round-worker: ${stderr || err.message}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

const root = await mkdtemp(join(tmpdir(), 'issueloop-bench-round-'));
try {
  const env = await scratchGitEnv(root, {
    path: process.env.PATH ?? '/usr/bin:/bin',
    name: 'Bench Maintainer',
    email: 'maintainer@bench.example',
  });
  const repo = await createScratchRepo({ root, name: 'checkout', files: PROJECT, message: 'initial', env });
  const gitVersion = execFileSync('git', ['--version'], { encoding: 'utf8' }).trim();
  console.log(
    `bench/round: ${ISSUES} issues, instant scripted model, ${TOOL_CALLS} tool calls each (node ${process.version}, ${gitVersion}, ${cpus().length} CPUs)`,
  );

  console.log(
    `[1/3] run: runRounds in process (GitHub emulator, scripted model, real git on a bare origin, memory claims, ledger)`,
  );
  const run = await measureRun(root, repo, env);
  const peakRss = process.resourceUsage().maxRSS * 1024;
  console.log(
    `  ${ISSUES} resolved, ${ISSUES} draft PRs, ${run.rounds} rounds, ${run.modelCalls} model calls, ${run.githubRequests} GitHub requests in ${seconds(run.ms)}; peak RSS ${Math.round(peakRss / MiB)} MiB`,
  );

  console.log(
    `[2/3] bare git: per issue fetchBranch, addWorktree, write a file, changedFiles, commitAll, remoteBranchSha, pushBranch, removeWorktree`,
  );
  const bareMs = await measureBareGit(root, repo, env, run.author);
  console.log(
    `  round: ${ISSUES} issues in ${seconds(run.ms)}; bare git work ${seconds(bareMs)}; overhead ratio ${(run.ms / bareMs).toFixed(2)}x (${Math.round((run.ms - bareMs) / ISSUES)} ms per issue on top of git)`,
  );

  console.log(
    '[3/3] selection: first round of a 10,000-issue backlog, 1,000 claims, trust for all (fresh process)',
  );
  const s = await measureSelection(join(root, 'selection'));
  const skipped = Object.entries(s.skipped)
    .map(([kind, n]) => `${count(n)} ${kind}`)
    .join(', ');
  console.log(
    `  listBacklog through the emulator: ${count(s.issues)} issues in ${seconds(s.listMs)} (${s.pages} pages); claims.list ${Math.round(s.claimsMs)} ms; trust ${Math.round(s.trustMs)} ms`,
  );
  console.log(
    `  selection: ${count(s.issues)} issues planned in ${s.planMs.toFixed(1)} ms (median of 5); ${count(s.candidates)} candidates, skipped ${skipped}; RSS +${Math.round((s.rssData - s.rssSeeded) / MiB)} MiB (heap +${Math.round((s.heapData - s.heapSeeded) / MiB)} MiB) for backlog, ETag cache, claims and trust`,
  );
} catch (err) {
  console.error(`bench/round: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await rm(root, { recursive: true, force: true });
}
