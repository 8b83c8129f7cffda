import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, type Script } from '../../src/emulators/anthropic/index.js';
import { readLedger } from '../../src/session/ledger.js';
import { CLI, runBuiltCli } from '../helpers/cli.js';
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
  'empty_rounds=2',
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

async function claimEvents(stateDir: string): Promise<number[]> {
  const issues: number[] = [];
  for (const name of await readdir(join(stateDir, 'runs'))) {
    const { events } = await readLedger(join(stateDir, 'runs', name));
    for (const e of events) if (e.type === 'claim') issues.push(e.issue as number);
  }
  return issues.sort((a, b) => a - b);
}

describe('issueloop run: several processes, crashes', () => {
  it('two runs on the same backlog and claim store never work on the same issue', {
    timeout: 60_000,
  }, async () => {
    const numbers = [1, 2, 3, 4, 5, 6].map((i) => run.github.addIssue(member(`Task ${i}`)));
    const { env } = await start(perIssue);
    // Two clones (two machines' checkouts), one shared state directory for the claims.
    const second = join(run.fx.root, 'checkout-2');
    run.fx.git(run.fx.root, 'clone', '--quiet', run.fx.origin, second);
    const [a, b] = await Promise.all([
      runBuiltCli(args(shared), { cwd: run.fx.checkout, env }),
      runBuiltCli(args(shared), { cwd: second, env }),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(await claimEvents(shared)).toEqual(numbers);
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
    let hung = false;
    const first = await start((request) => {
      if (request.messages.length === 1) return perIssue(request, 0);
      hung = true;
      return { hang: true };
    });
    const child = spawn(process.execPath, [CLI, ...args(shared)], {
      cwd: run.fx.checkout,
      env: first.env,
      stdio: 'ignore',
    });
    while (!hung) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('close', resolve));

    const file = join(shared, 'claims.json');
    const crashed = JSON.parse(await readFile(file, 'utf8'));
    expect(crashed.issues[String(number)].lease).not.toBeNull();
    // While the lease lives, another run leaves the issue alone.
    const next = await start(perIssue);
    const blocked = await runBuiltCli([...args(shared), '--once'], { cwd: run.fx.checkout, env: next.env });
    expect(blocked.code).toBe(0);
    expect(blocked.stdout).toContain('resolved 0, failed 0');
    // Time passes beyond the TTL (30 min): the lease lapses.
    crashed.issues[String(number)].lease.expires_at = new Date(Date.now() - 1_000).toISOString();
    await writeFile(file, JSON.stringify(crashed));
    const takeover = await runBuiltCli(args(shared), { cwd: run.fx.checkout, env: next.env });
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
