import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Lease } from '../../src/claims/claim-store.js';
import { createFileClaimStore } from '../../src/claims/file-claim-store.js';
import { parseIssueArg } from '../../src/cli/commands/claims.js';
import { humanDuration } from '../../src/core/human-duration.js';
import { runBuiltCli, STACK_FRAME } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { TERMINAL_ACTS } from '../helpers/terminal-acts.js';
import { createClaimsCheckouts, HOUR } from './claims-checkouts.js';

const GITHUB_TOKEN = `ghp_${'S3cr3t'.repeat(6)}`;

const { checkout, tempCwd, cleanup } = createClaimsCheckouts();
afterAll(cleanup);

describe('issueloop claims', () => {
  it('lists leases, time left, failures against the limit and the last reason', async () => {
    const { cwd, file } = await checkout();
    const result = await runBuiltCli(['claims'], { cwd });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^ISSUE\s+OWNER\s+EXPIRES IN\s+FAILURES\s+LAST OUTCOME\s+LAST REASON$/);
    expect(lines.find((l) => l.startsWith('#5'))).toMatch(
      /^#5\s+-\s+-\s+3\/3 needs human\s+-\s+verify_failed: npm test failed \(attempt 3\)$/,
    );
    expect(lines.find((l) => l.startsWith('#7'))).toMatch(
      /^#7\s+host-a:1\s+(59m \d\ds|1h 00m)\s+0\/3\s+-\s+-$/,
    );
    expect(lines.find((l) => l.startsWith('#9'))).toMatch(/^#9\s+-\s+-\s+0\/3\s+interrupted\s+-$/);
    expect(result.stdout).toContain(`1 leased, 1 needing a human, 3 known (${file})`);
  });

  it('regression: a failure reason carrying escape sequences is shown as its text, and --json keeps it escaped', async () => {
    const { cwd, file } = await checkout();
    const hostile = 'npm test failed\u001b]0;pwned\u0007\u001b[2J\u202e';
    const stored = await readFile(file, 'utf8');
    await writeFile(file, stored.replaceAll('npm test failed', JSON.stringify(hostile).slice(1, -1)));
    expect(await readFile(file, 'utf8')).toContain('\\u001b]0;pwned');
    const result = await runInProcess(['claims'], { cwd });
    expect(result.stdout).toMatch(/#5 .*verify_failed: npm test failed \(attempt 3\)$/m);
    const json = await runInProcess(['claims', '--json'], { cwd });
    expect(json.stdout).toContain('\\u202e');
    for (const out of [result.stdout, result.stderr, json.stdout]) expect(out).not.toMatch(TERMINAL_ACTS);
  });

  it('--json prints the records, the limit and where they live', async () => {
    const { cwd, file } = await checkout();
    const result = await runInProcess(['claims', 'list', '--json'], { cwd });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      location: string;
      max_failures: number;
      claims: Array<{
        issue: number;
        needs_human: boolean;
        lease: { owner: string } | null;
        partial_context: string | null;
      }>;
    };
    expect(report.location).toBe(file);
    expect(report.max_failures).toBe(3);
    expect(report.claims.map((c) => [c.issue, c.lease?.owner ?? null, c.needs_human])).toEqual([
      [5, null, true],
      [7, 'host-a:1', false],
      [9, null, false],
    ]);
    expect(report.claims[2]?.partial_context).toBe('half way');
  });

  it('reads the store under the configured state_dir and max_failures', async () => {
    const { cwd, file } = await checkout('state_dir: var/issueloop\nclaims:\n  max_failures: 5\n');
    const result = await runInProcess(['claims'], { cwd });
    expect(result.stdout).toContain(file);
    expect(file).toContain(join('var', 'issueloop'));
    expect(result.stdout).toMatch(/#5\s+-\s+-\s+3\/5\s/);
  });

  it('an empty store says so', async () => {
    const cwd = await tempCwd();
    const result = await runInProcess(['claims'], { cwd });
    expect(result).toMatchObject({
      code: 0,
      stdout: `no claims or failure history in ${join(cwd, '.issueloop', 'claims.json')}\n`,
    });
  });

  it('release ends a lease at once; the old holder is rejected at its next renewal', async () => {
    const { cwd, store } = await checkout();
    const lease = (await store.get(7))?.lease;
    // The seeded lease must be there, or the renewal below would prove nothing.
    expect(lease).toMatchObject({ issue: 7, owner: 'host-a:1' });
    const result = await runBuiltCli(['claims', 'release', '#7'], { cwd });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(`released #7 (was held by host-a:1, token ${lease?.token})`);
    expect((await store.get(7))?.lease).toBeNull();
    await expect(store.renew(lease as Lease)).rejects.toThrow(/no longer valid/);
    const again = await runInProcess(['claims', 'release', '7'], { cwd });
    expect(again).toMatchObject({ code: 0, stdout: '#7 is not claimed; nothing to release\n' });
  });

  it('reset-failures makes a needs-human issue eligible again', async () => {
    const { cwd, store } = await checkout();
    expect(await store.needsHuman(5)).toBe(true);
    const result = await runInProcess(['claims', 'reset-failures', '5'], { cwd });
    expect(result).toMatchObject({
      code: 0,
      stdout: 'cleared the failure history of #5; it is eligible again\n',
    });
    expect(await store.needsHuman(5)).toBe(false);
  });

  it.each([['abc'], ['0'], ['-3'], ['4.5'], ['#']])(
    'rejects the issue argument %s with exit 2',
    async (arg) => {
      const { cwd, file } = await checkout();
      const before = await readFile(file, 'utf8');
      const result = await runInProcess(['claims', 'release', arg], { cwd });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('issue must be an issue number such as 42 or #42');
      expect(await readFile(file, 'utf8')).toBe(before);
    },
  );

  it('never prints a token that reached the file', async () => {
    const { cwd, store } = await checkout('redact_env: [DEPLOY_KEY]\n');
    await store.recordFailure(3, { errorClass: 'auth', message: 'raw value leaked: deploy-key-value-123' });
    const result = await runInProcess(['claims', '--json'], {
      cwd,
      env: { GITHUB_TOKEN, DEPLOY_KEY: 'deploy-key-value-123' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('raw value leaked: [REDACTED]');
  });
});

describe('a corrupt claims file', () => {
  async function corrupt() {
    const { cwd, file } = await checkout();
    const text = '{"version": 1, "next_token": 7, "issues": {"7": {"issue": 7,, }}}';
    await writeFile(file, text);
    return { cwd, file, text };
  }

  it('stops every claims command with exit 2, the file name and the parse error, and is left as it was', async () => {
    const { cwd, file, text } = await corrupt();
    for (const args of [['claims'], ['claims', 'release', '7'], ['claims', 'reset-failures', '7']]) {
      const result = await runInProcess(args, { cwd });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(file);
      expect(result.stderr).toMatch(/invalid JSON: .*position/);
      expect(result.stderr).toContain('issueloop reset --claims');
      expect(result.stderr).not.toMatch(STACK_FRAME);
    }
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('from a newer issueloop is not moved aside by reset: exit 2, upgrade', async () => {
    const { cwd, file } = await checkout();
    const text = JSON.stringify({ version: 9, anything: true });
    await writeFile(file, text);
    const result = await runInProcess(['reset', '--claims', '--yes'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/format version 9 was written by a newer issueloop.*Upgrade issueloop/);
    expect(await readFile(file, 'utf8')).toBe(text);
    expect((await readdir(join(file, '..'))).some((f) => f.includes('corrupt'))).toBe(false);
  });

  it('reset --claims --yes moves it aside byte for byte and the store starts empty', async () => {
    const { cwd, file, text } = await corrupt();
    const result = await runInProcess(['reset', '--claims', '--yes'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^moved the unreadable claims file to claims\.json\.corrupt-\d{4}-\d\d-\d\dT[\d-]+Z;/,
    );
    const aside = (await readdir(join(file, '..'))).filter((f) => f.startsWith('claims.json.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(await readFile(join(file, '..', aside[0] as string), 'utf8')).toBe(text);
    expect(await runInProcess(['claims'], { cwd })).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^no claims/),
    });
  });
});

describe('issueloop doctor and the claim store', () => {
  // The claims check is what these are about: no sandbox probe (bwrap) for it.
  const NO_SANDBOX_PROBE = { ISSUELOOP_SANDBOX__MODE: 'none' };

  it('reports where the claims live and what they hold', async () => {
    const { cwd, file } = await checkout();
    const result = await runInProcess(['doctor', '--json'], { cwd, env: NO_SANDBOX_PROBE });
    const report = JSON.parse(result.stdout) as {
      checks: Array<{ name: string; status: string; detail: string }>;
    };
    expect(report.checks.find((c) => c.name === 'claims')).toEqual({
      name: 'claims',
      status: 'ok',
      detail: `${file}: 1 leased, 1 needing a human, 3 known`,
    });
  });

  it('fails with exit 2 on a corrupt claims file and says how to fix it', async () => {
    const { cwd, file } = await checkout();
    await writeFile(file, '{');
    const result = await runInProcess(['doctor'], { cwd, env: NO_SANDBOX_PROBE });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(file);
    expect(result.stdout).toContain('issueloop reset --claims');
    expect(await readFile(file, 'utf8')).toBe('{');
  });
});

describe('argument and display helpers', () => {
  it('parseIssueArg accepts 42 and #42 only', () => {
    expect(parseIssueArg('42')).toBe(42);
    expect(parseIssueArg(' #42 ')).toBe(42);
    expect(() => parseIssueArg('042')).toThrow(/such as 42 or #42, got "042"/);
    expect(() => parseIssueArg('99999999999')).toThrow(/such as 42/);
  });

  it('humanDuration shows the two largest units', () => {
    expect(humanDuration(0)).toBe('0s');
    expect(humanDuration(-5_000)).toBe('0s');
    expect(humanDuration(59_400)).toBe('59s');
    expect(humanDuration(95_000)).toBe('1m 35s');
    expect(humanDuration(HOUR + 5 * 60_000)).toBe('1h 05m');
  });
});

it('finds the claims file under a state_dir given with --set', async () => {
  const cwd = await tempCwd();
  const file = join(cwd, 'custom', 'state', 'claims.json');
  await createFileClaimStore({ file, clock: { now: () => Date.now() }, maxFailures: 3 }).claim(
    3,
    'host-a:1',
    HOUR,
  );
  const result = await runInProcess(['--set', 'state_dir=custom/state', 'claims', '--json'], { cwd });
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as { location: string; claims: Array<{ issue: number }> };
  expect(report.location).toBe(file);
  expect(report.claims.map((c) => c.issue)).toEqual([3]);
  expect(await runInProcess(['claims', 'release', '3'], { cwd })).toMatchObject({
    code: 0,
    stdout: '#3 is not claimed; nothing to release\n',
  });
});
