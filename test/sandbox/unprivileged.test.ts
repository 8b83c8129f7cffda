import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * GitHub's runners and most hosts run issueloop as an ordinary user, where bubblewrap behaves
 * differently from root (it maps root first to mount devpts, then moves into a second user
 * namespace). Run as root here, the probe drops to `nobody` first; it uses the built dist/.
 */
const probeScript = `
const { probeSandbox } = await import(${JSON.stringify(join(process.cwd(), 'dist/sandbox/probe.js'))});
console.log(JSON.stringify(await probeSandbox(process.env)));
`;

const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];

describe('the sandbox of an unprivileged user', () => {
  it("regression: joins the session's network namespace (nsenter: EPERM when bwrap's devpts user namespace held it)", () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp' };
    const argv = ['--input-type=module', '-e', probeScript];
    const result =
      process.getuid?.() === 0
        ? // The Node that `nobody` can reach on PATH (root's own may live under /root).
          spawnSync('setpriv', [...NOBODY, 'sh', '-c', 'exec node "$@"', 'node', ...argv], {
            env,
            encoding: 'utf8',
          })
        : spawnSync(process.execPath, argv, { env, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    const probe = JSON.parse(result.stdout) as { ok: boolean; problem?: string };
    expect(probe.problem).toBeUndefined();
    expect(probe.ok).toBe(true);
  });
});
