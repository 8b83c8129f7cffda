import { describe, expect, it } from 'vitest';
import { reply } from '../../src/emulators/anthropic/index.js';
import { DEFAULT_TOKEN } from '../../src/emulators/github/index.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { useRunFixture } from './run-fixture.js';

const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });

const member = { author: 'octocat', authorAssociation: 'MEMBER' as const, labels: ['issueloop'] };

/** The dry run's lines for one issue: `  #N title` under would claim, or `... — reason` under skipped. */
function lineOf(stdout: string, n: number): string | undefined {
  return stdout.split('\n').find((line) => line.startsWith(`  #${n} `));
}

async function closeIssue(n: number) {
  const response = await run.github.fetch(`${run.github.baseUrl}/repos/octo-org/widgets/issues/${n}`, {
    method: 'PATCH',
    headers: { authorization: `token ${DEFAULT_TOKEN}` },
    body: JSON.stringify({ state: 'closed' }),
  });
  expect(response.status).toBe(200);
}

describe('issue dependencies: run --dry-run skips a blocked issue and claims it once its blocker closes', () => {
  it('both ways (GitHub’s dependency, a trusted Blocked by line), an untrusted line ignored, a cycle', async () => {
    const gh = run.github;
    gh.setPermission('maint', 'write');
    const blocker = gh.addIssue({ title: 'Blocker', ...member });
    const native = gh.addIssue({ title: 'Native dependency', ...member });
    gh.blockIssue(native, blocker);
    const line = gh.addIssue({ title: 'Body line', ...member, body: `Blocked by #${blocker}` });
    const outsider = gh.addIssue({
      title: 'Outsider line',
      body: `Blocked by #${blocker}`,
      author: 'drive-by',
      authorAssociation: 'NONE',
      labels: ['issueloop'],
      labeledBy: 'maint',
    });
    const cycleA = gh.addIssue({ title: 'Cycle A', ...member });
    const cycleB = gh.addIssue({ title: 'Cycle B', ...member, body: `Depends on #${cycleA}` });
    gh.blockIssue(cycleA, cycleB);

    const { env } = await run.start(() => reply.text('never asked'));
    const dryRun = () =>
      runInProcess(['run', '--dry-run', '--repo', 'octo-org/widgets', '--set', 'workers=8'], {
        cwd: run.fx.checkout,
        env,
      });
    const before = await dryRun();
    expect(before.code).toBe(0);
    expect(lineOf(before.stdout, native)).toBe(
      `  #${native} Native dependency — blocked by #${blocker} (open)`,
    );
    expect(lineOf(before.stdout, line)).toBe(`  #${line} Body line — blocked by #${blocker} (open)`);
    expect(lineOf(before.stdout, cycleA)).toBe(`  #${cycleA} Cycle A — blocked by #${cycleB} (open)`);
    expect(lineOf(before.stdout, cycleB)).toBe(`  #${cycleB} Cycle B — blocked by #${cycleA} (open)`);
    // The line of an author without write access (only the label vouched) names nothing: claimed.
    expect(lineOf(before.stdout, outsider)).toBe(`  #${outsider} Outsider line`);
    expect(lineOf(before.stdout, blocker)).toBe(`  #${blocker} Blocker`);

    await closeIssue(blocker);
    const after = await dryRun();
    expect(after.code).toBe(0);
    expect(lineOf(after.stdout, native)).toBe(`  #${native} Native dependency`);
    expect(lineOf(after.stdout, line)).toBe(`  #${line} Body line`);
    expect(lineOf(after.stdout, cycleA)).toBe(`  #${cycleA} Cycle A — blocked by #${cycleB} (open)`);
    expect(after.stdout).not.toContain(`blocked by #${blocker}`);
    expect(after.stdout).toContain('would claim, in order:');
  });
});
