import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/cli/commands/doctor.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function protectedCheck(config: string) {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-doctor-'));
  await writeFile(join(dir, 'issueloop.config.yaml'), `repo: acme/widgets\n${config}`);
  execFileSync('git', ['init', '-q', dir]);
  const report = await runDoctor({
    cwd: dir,
    env: { PATH: process.env.PATH },
    version: '0',
    nodeVersion: 'v24.0.0',
  });
  return report.checks.find((c) => c.name === 'protected paths');
}

describe('doctor: protected paths', () => {
  it('lists the globs in force', async () => {
    expect(await protectedCheck("protected_paths: ['...', 'infra/**']\n")).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('.github/workflows/**, .github/actions/**') as unknown,
    });
  });

  it('warns when protected_paths: [] turns the defaults off', async () => {
    const check = await protectedCheck('protected_paths: []\n');
    expect(check?.status).toBe('warn');
    expect(check?.detail).toContain('protected_paths: [] turns off the defaults (.github/workflows/**');
    expect(check?.fix).toContain("'...'");
  });
});
