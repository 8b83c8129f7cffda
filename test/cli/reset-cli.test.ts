import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
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
    expect(result).toMatchObject({ code: 0, stdout: 'cleared 1 lease(s) and the history of 3 issue(s)\n' });
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
    expect(stdout).toBe('cleared 1 lease(s) and the history of 3 issue(s)\n');
    expect(await store.list()).toEqual([]);
  });
});
