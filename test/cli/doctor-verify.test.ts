import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/cli/commands/doctor.js';
import { configTemplate } from '../../src/cli/commands/init.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function doctorWith(config: string) {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-doctor-verify-'));
  await writeFile(join(dir, 'issueloop.config.yaml'), `repo: acme/widgets\n${config}`);
  execFileSync('git', ['init', '-q', dir]);
  const report = await runDoctor({
    cwd: dir,
    env: { PATH: process.env.PATH },
    version: '0',
    nodeVersion: 'v24.0.0',
  });
  return report.checks.find((c) => c.name === 'verify');
}

describe('doctor: verify.command', () => {
  it('newcomer: with the configuration init writes, doctor said nothing of verify and the first PR broke the tests; now it warns with the fix', async () => {
    const check = await doctorWith(await configTemplate());
    expect(check?.status).toBe('warn');
    expect(check?.detail).toContain('no verify.command');
    expect(check?.fix).toContain('set verify.command in issueloop.config.yaml');
  });

  it('names the command that must pass when one is set', async () => {
    const check = await doctorWith('verify:\n  command: npm test\n');
    expect(check).toMatchObject({
      status: 'ok',
      detail: '`npm test` must pass before a pull request is opened',
    });
  });
});
