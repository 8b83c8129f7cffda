import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileOutcomeStore } from '../../src/claims/file-outcome-store.js';
import { KEPT } from '../../src/cli/commands/claims.js';
import { runCli } from '../../src/cli/run-cli.js';
import { runBuiltCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { createClaimsCheckouts, HOUR } from './claims-checkouts.js';

const { checkout, cleanup } = createClaimsCheckouts();
afterAll(cleanup);

describe('issueloop reset', () => {
  it('refuses to clear without a terminal to ask and without --yes (exit 2), changing nothing', async () => {
    const { cwd, file } = await checkout();
    const before = await readFile(file, 'utf8');
    const result = await runBuiltCli(['reset'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('reset needs a confirmation: run it in a terminal, or pass --yes');
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('--yes clears leases and history but fencing tokens keep growing', async () => {
    const { cwd, file, store } = await checkout();
    const result = await runInProcess(['reset', '--yes'], { cwd });
    expect(result).toMatchObject({
      code: 0,
      stdout: `cleared 1 lease(s) and the history of 3 issue(s)\n${KEPT}`,
    });
    const state = JSON.parse(await readFile(file, 'utf8')) as { issues: object; next_token: number };
    expect(state.issues).toEqual({});
    expect(state.next_token).toBe(3);
    const claimed = await store.claim(7, 'host-c:3', HOUR);
    expect(claimed.ok && claimed.lease.token).toBe(3);
  });

  async function inProcess(cwd: string, answer: boolean) {
    const questions: string[] = [];
    let stdout = '';
    const code = await runCli({
      argv: ['reset'],
      env: {},
      cwd,
      nodeVersion: process.version,
      stdout: (t) => {
        stdout += t;
      },
      stderr: () => undefined,
      confirm: async (q) => {
        questions.push(q);
        return answer;
      },
    });
    return { code, stdout, questions };
  }

  it('asks at a terminal, naming what it clears, and changes nothing on "no"', async () => {
    const { cwd, file } = await checkout();
    const before = await readFile(file, 'utf8');
    const { code, stdout, questions } = await inProcess(cwd, false);
    expect(code).toBe(0);
    expect(questions).toEqual([
      `Clear 1 active lease(s) (held by host-a:1) and the history of 3 issue(s) in ${file}? [y/N] `,
    ]);
    expect(stdout).toBe('reset cancelled; nothing was changed\n');
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('clears on "yes"', async () => {
    const { cwd, store } = await checkout();
    const { code, stdout } = await inProcess(cwd, true);
    expect(code).toBe(0);
    expect(stdout).toBe(`cleared 1 lease(s) and the history of 3 issue(s)\n${KEPT}`);
    expect(await store.list()).toEqual([]);
  });

  it('keeps the outcome history and the spend ledger: report is built on them, the caps count them', async () => {
    const { cwd, file, store } = await checkout();
    const outcomes = createFileOutcomeStore({ file: join(dirname(file), 'outcomes.json') });
    await outcomes.recordSession(
      7,
      {
        kind: 'attempt',
        at: '2026-11-21T12:00:00.000Z',
        run_id: 'r1',
        engine: 'native',
        models: ['m'],
        input_tokens: 1,
        output_tokens: 1,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        usd: 0.5,
        duration_ms: 1000,
        outcome: 'resolved',
      },
      { title: 'T', labels: [], claimedAt: '2026-11-21T11:00:00.000Z' },
    );
    const spend = join(dirname(file), 'spend.json');
    await writeFile(spend, '{"kept":true}\n');
    const result = await runInProcess(['reset', '--yes'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(KEPT);
    expect(await store.list()).toEqual([]);
    expect((await outcomes.get(7))?.sessions.map((s) => s.usd)).toEqual([0.5]);
    expect(await readFile(spend, 'utf8')).toBe('{"kept":true}\n');
  });
});
