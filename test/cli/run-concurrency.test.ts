import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, type Script } from '../../src/emulators/anthropic/index.js';
import { readLedger } from '../../src/session/ledger.js';
import { CLI, runBuiltCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { useRunFixture } from './run-fixture.js';

const run = useRunFixture({ 'notes.txt': 'start\n' });
let shared = '';
beforeEach(async () => {
  shared = await mkdtemp(join(tmpdir(), 'issueloop-shared-state-'));
});
afterEach(async () => {
  await rm(shared, { recursive: true, force: true });
});

/** Each issue's agent writes its own file: `issue-<n>.txt`. */
const perIssue: Script = (request) => {
  if (request.messages.length > 1) return reply.text('Done.');
  const number = /Issue #(\d+)/.exec(JSON.stringify(request.messages[0]))?.[1] ?? '0';
  return reply.toolUse([
    {
      name: 'str_replace_based_edit_tool',
      input: { command: 'create', path: `issue-${number}.txt`, file_text: 'done\n' },
    },
  ]);
};

const start = (script: Script) => run.start(script);

const args = (stateDir: string) => [
  'run',
  '--repo',
  'octo-org/widgets',
  '--set',
  // Two: a round whose only claim was lost to the other process counts as empty, and one empty round
  // would end that process with nothing claimed.
  'empty_rounds=2',
  '--set',
  'workers=1',
  '--set',
  'poll_interval=1s',
  '--set',
  `state_dir=${stateDir}`,
  '--set',
  'log_level=warn',
];

const member = (title: string) => ({
  title,
  author: 'octocat',
  authorAssociation: 'MEMBER' as const,
  labels: ['issueloop'],
});

/** The issues each run claimed, from its own ledger (one per run in the shared state directory). */
async function claimsPerRun(stateDir: string): Promise<number[][]> {
  const runs: number[][] = [];
  for (const name of await readdir(join(stateDir, 'runs'))) {
    const { events } = await readLedger(join(stateDir, 'runs', name));
    runs.push(events.filter((e) => e.type === 'claim').map((e) => e.issue as number));
  }
  return runs;
}

/**
 * `script`, with the first model call of each session held until sessions of two different issues
 * wait at once. With one worker per process that is only possible when both processes hold a claim:
 * neither can drain the backlog before the other has started. The hold has a deadline, so a run where
 * one process never claims ends and fails on `contended()` with both runs' output, not on a timeout.
 */
function heldUntilBothWork(
  script: Script,
  deadlineMs = 30_000,
): { script: Script; contended: () => boolean } {
  const waiting = new Set<string>();
  let release = () => {};
  const both = new Promise<void>((resolve) => {
    release = resolve;
  });
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, deadlineMs).unref());
  return {
    contended: () => waiting.size >= 2,
    script: async (request, index) => {
      if (request.messages.length === 1) {
        waiting.add(JSON.stringify(request.messages[0]));
        if (waiting.size >= 2) release();
        await Promise.race([both, deadline]);
      }
      return script(request, index);
    },
  };
}

/** A script whose second call never answers; `hung` settles when it is made. */
function hangingAfterFirst(script: Script): { script: Script; hung: Promise<void> } {
  let reached = () => {};
  const hung = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return {
    hung,
    script: (request, index) => {
      if (request.messages.length === 1) return script(request, index);
      reached();
      return { hang: true };
    },
  };
}

describe('issueloop run: several processes, crashes', () => {
  it('two runs on the same backlog and claim store both claim work and never work on the same issue', {
    timeout: 90_000,
  }, async () => {
    const numbers = [1, 2, 3, 4].map((i) => run.github.addIssue(member(`Task ${i}`)));
    const gate = heldUntilBothWork(perIssue);
    const { env } = await start(gate.script);
    // Two clones (two machines' checkouts), one shared state directory for the claims.
    const second = join(run.fx.root, 'checkout-2');
    run.fx.git(run.fx.root, 'clone', '--quiet', run.fx.origin, second);
    const [a, b] = await Promise.all([
      runBuiltCli(args(shared), { cwd: run.fx.checkout, env }),
      runBuiltCli(args(shared), { cwd: second, env }),
    ]);
    expect(gate.contended(), `${a.stdout}${a.stderr}\n---\n${b.stdout}${b.stderr}`).toBe(true);
    expect([a.code, b.code]).toEqual([0, 0]);
    // Both processes claimed (their ledgers and their summaries), no issue twice, none left out.
    const perRun = await claimsPerRun(shared);
    expect(perRun).toHaveLength(2);
    for (const claimed of perRun) expect(claimed.length).toBeGreaterThan(0);
    expect(perRun.flat().sort((x, y) => x - y)).toEqual(numbers);
    for (const summary of [a.stdout, b.stdout]) expect(summary).toMatch(/#\d+\s+resolved/);
    expect(
      run.github
        .pulls()
        .map((p) => p.head.ref)
        .sort(),
    ).toEqual(numbers.map((n) => `issueloop/issue-${n}`).sort());
    const claims = JSON.parse(await readFile(join(shared, 'claims.json'), 'utf8'));
    for (const n of numbers)
      expect(claims.issues[String(n)]).toMatchObject({ attempts: 1, last_outcome: 'resolved', lease: null });
  });

  it('a run killed with SIGKILL leaves its lease; another run takes the issue over once the lease expires', {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue(member('Task'));
    const { script, hung } = hangingAfterFirst(perIssue);
    const first = await start(script);
    const child = spawn(process.execPath, [CLI, ...args(shared)], {
      cwd: run.fx.checkout,
      env: first.env,
      stdio: 'ignore',
    });
    await hung;
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('close', resolve));

    const file = join(shared, 'claims.json');
    const crashed = JSON.parse(await readFile(file, 'utf8'));
    expect(crashed.issues[String(number)].lease).not.toBeNull();
    // While the lease lives, another run leaves the issue alone.
    const next = await start(perIssue);
    const blocked = await runInProcess([...args(shared), '--once'], { cwd: run.fx.checkout, env: next.env });
    expect(blocked.code).toBe(0);
    expect(blocked.stdout).toContain('resolved 0, failed 0');
    // Time passes beyond the TTL (30 min): the lease lapses.
    crashed.issues[String(number)].lease.expires_at = new Date(Date.now() - 1_000).toISOString();
    await writeFile(file, JSON.stringify(crashed));
    const takeover = await runInProcess(args(shared), { cwd: run.fx.checkout, env: next.env });
    expect(takeover.code).toBe(0);
    expect(takeover.stdout).toMatch(new RegExp(`#${number}\\s+resolved`));
    const after = JSON.parse(await readFile(file, 'utf8'));
    expect(after.issues[String(number)]).toMatchObject({
      attempts: 2,
      last_outcome: 'resolved',
      lease: null,
    });
    expect(run.github.pulls()).toHaveLength(1);
  });
});
