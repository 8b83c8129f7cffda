import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { terminalOptions } from '../../src/cli/terminal-options.js';
import { runBuiltCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { isolatedEnv } from '../session/git/git-fixture.js';

/**
 * Preloaded into the CLI: records every socket connection the process opens, so a test can prove the
 * demo talked to loopback only. Recording (not blocking) keeps a failure readable: the host is named.
 */
const NETWORK_RECORDER = `
import net from 'node:net';
import { appendFileSync } from 'node:fs';
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  // net.connect passes its normalised arguments as one array; direct callers pass options or port, host.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const target =
    typeof first === 'object' && first !== null
      ? (first.path ?? \`\${first.host ?? 'localhost'}:\${first.port}\`)
      : \`\${typeof args[1] === 'string' ? args[1] : 'localhost'}:\${first}\`;
  appendFileSync(process.env.DEMO_TEST_NET_LOG, \`\${target}\\n\`);
  return connect.apply(this, args);
};
`;

const LOOPBACK = /^(127\.0\.0\.1|localhost|::1|\[::1\]):\d+$/;

let dir: string;
let env: Record<string, string>;
let netLog: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-demo-test-'));
  netLog = join(dir, 'connections.log');
  await writeFile(netLog, '');
  const recorder = join(dir, 'record-network.mjs');
  await writeFile(recorder, NETWORK_RECORDER);
  env = {
    // The demo's temporary repository lands here, so the test can see it removed (or kept).
    TMPDIR: dir,
    NODE_OPTIONS: `--import=${recorder}`,
    DEMO_TEST_NET_LOG: netLog,
  };
});

/** Repositories an in-process demo kept (in this process's temporary directory, not `dir`). */
const kept: string[] = [];
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await Promise.all(kept.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

async function connections(): Promise<string[]> {
  return (await readFile(netLog, 'utf8')).split('\n').filter((line) => line !== '');
}

async function demoDirs(): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith('issueloop-demo-'));
}

describe('issueloop demo (the built CLI, no credentials)', () => {
  it('runs the real `run` against the local emulators: #1 resolved, #2 verify_failed, #3 untouched; loopback only', {
    timeout: 60_000,
  }, async () => {
    // runBuiltCli passes PATH and HOME only: no GitHub or Anthropic credential anywhere.
    const result = await runBuiltCli(['demo'], { cwd: dir, env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out.split('\n')[0]).toBe(
      'issueloop demo — against a local GitHub emulator and a scripted model; nothing leaves this machine',
    );
    expect(out).toContain('issueloop run: the backlog stayed empty');
    expect(out).toMatch(/^#1\s+resolved\s.*\/demo-org\/widgets\/pull\/\d+$/m);
    // The reason quotes the check's failing line: the assertion's headline.
    expect(out).toMatch(
      /^#2\s+verify_failed\s.*`node test\.js` failed \(exit 1\): AssertionError \[ERR_ASSERTION\]: Expected values to be strictly equal:$/m,
    );
    expect(out).not.toMatch(/^#3\s/m);
    expect(out).toContain('resolved 1, failed 1 (verify_failed 1)');
    expect(out).toContain('#3 not worked: opened and labelled by an outsider without write access');
    expect(out).toContain('The temporary repository was removed');
    // The pull request's life: CI fails, the next run's follow-up fixes it, it merges, Done.
    expect(out).toMatch(/CI ran on PR #(\d+) and its `test` check failed\. The next run follows the PR:/);
    expect(out).toMatch(
      /CI passed on the follow-up's commit and mona merged PR #\d+\. The next run books it:/,
    );
    expect(out.match(/^\$ issueloop run$/gm)).toHaveLength(3);
    expect(out).toContain('moved the issue to Done on the board');

    const seen = await connections();
    // The recorder saw the run's requests, so an empty non-loopback list means something.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((target) => !LOOPBACK.test(target))).toEqual([]);
    expect(await demoDirs()).toEqual([]);
  });

  it("newcomer: demo --json gives all three runs and the ledger's path; --keep --json: the runs' JSON on stdout, the story on stderr (JSON log lines under --log-format json, on a terminal too), the repository left in place; the caller's tokens and endpoints are not used", {
    timeout: 60_000,
  }, async () => {
    // In-process: the demo's logic, with the io main.ts gives a terminal. The caller's endpoints are
    // a loopback port nothing listens on: a demo that used them could not resolve anything.
    const callers = 'http://127.0.0.1:1';
    const result = await runInProcess(['--log-format', 'json', '--verbose', 'demo', '--keep', '--json'], {
      cwd: dir,
      env: {
        GITHUB_TOKEN: 'ghp_callers_own_token',
        GITHUB_API_URL: callers,
        ANTHROPIC_API_KEY: 'sk-ant-callers-own-key',
        ANTHROPIC_BASE_URL: callers,
      },
      io: terminalOptions({ TERM: 'xterm-256color' }, true),
    });
    const root = /Kept the temporary repository in (\S+):/.exec(result.stderr)?.[1];
    if (root) kept.push(root);
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n')[0]).toContain('issueloop demo — against a local GitHub emulator');
    expect(result.stderr).toMatch(/\{"level":30,[^\n]*round 1: 2 claimed/);
    expect(result.stderr).not.toContain(callers);
    const document = JSON.parse(result.stdout) as {
      kept: boolean;
      runs: Array<{
        name: string;
        ledger: string | null;
        summary: { stop: string; ledger: string | null; reports: Array<{ issue: number; outcome: string }> };
      }>;
    };
    expect(document.kept).toBe(true);
    expect(document.runs.map((run) => run.name)).toEqual(['first_attempt', 'ci_follow_up', 'merge']);
    const [first, followUp] = document.runs;
    expect(first?.summary.stop).toBe('empty_backlog');
    expect(first?.summary.reports.map((r) => [r.issue, r.outcome])).toEqual(
      expect.arrayContaining([
        [1, 'resolved'],
        [2, 'verify_failed'],
      ]),
    );
    expect(first?.summary.reports).toHaveLength(2);
    expect(followUp?.summary.reports.map((r) => r.issue)).toEqual([1]);
    const ledgers = document.runs.map((run) => run.ledger ?? '');
    expect(new Set(ledgers).size).toBe(3);
    for (const [index, ledger] of ledgers.entries()) {
      expect(ledger.startsWith(join(root ?? '/none', 'widgets', '.issueloop', 'runs'))).toBe(true);
      expect(existsSync(ledger), ledger).toBe(true);
      expect(document.runs[index]?.summary.ledger).toBe(ledger);
    }

    expect(root).toBeDefined();
    expect(existsSync(join(root ?? '', 'widgets', '.issueloop', 'claims.json'))).toBe(true);
    // The fix and the follow-up's test really reached the bare "GitHub" remote, and main once merged.
    const show = (what: string) =>
      execFileSync('git', ['--git-dir', join(root ?? '', 'origin.git'), 'show', what], {
        env: isolatedEnv(dir),
        encoding: 'utf8',
      });
    expect(show('main:greet.js')).toContain("'hello, ' + name + '!'");
    expect(show('main:test.js')).toContain("assert.equal(greet('Ada'), 'hello, Ada!');");
    expect(show('issueloop/issue-1:test.js')).toContain("assert.equal(greet('Ada'), 'hello, Ada!');");
  });
});
