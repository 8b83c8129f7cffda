import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from '../helpers/cli.js';
import { createClaimsCheckouts } from './claims-checkouts.js';

const { checkout, cleanup } = createClaimsCheckouts();
afterAll(cleanup);

describe('a stored lease beyond the maximum TTL', () => {
  it('regression: a lease dated a year ahead is not shown as held, and the command says why', async () => {
    const { cwd, file } = await checkout();
    const state = JSON.parse(await readFile(file, 'utf8'));
    state.issues['7'].lease.expires_at = new Date(Date.now() + 365 * 86_400_000).toISOString();
    await writeFile(file, JSON.stringify(state));
    const result = await runBuiltCli(['claims', '--json'], { cwd });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { claims: Array<{ issue: number; lease: unknown }> };
    expect(report.claims.find((c) => c.issue === 7)?.lease).toBeNull();
    expect(result.stderr).toMatch(
      /^issueloop: warning: claims: the lease on #7 \(token \d+, host-a:1\) expires at .*, further ahead than the 24 h maximum lease TTL allows: the record is damaged or forged, so it is treated as expired\n$/,
    );
  });
});
