import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { explainRefusal, probeSessionNetwork } from '../../src/sandbox/probe.js';
import { sandboxFacts } from '../helpers/sandbox.js';

const sysctls = (values: Record<string, string>) => (path: string) => values[path];
const REFUSED = 'bwrap: setting up uid map: Permission denied\n';

describe('explainRefusal', () => {
  it("names Ubuntu's AppArmor restriction and both fixes (ubuntu-latest)", () => {
    const why = explainRefusal(
      REFUSED,
      sysctls({ '/proc/sys/kernel/apparmor_restrict_unprivileged_userns': '1' }),
    );
    expect(why.problem).toContain('AppArmor restricts unprivileged user namespaces');
    expect(why.problem).toContain('setting up uid map: Permission denied');
    expect(why.fix).toContain('bwrap-userns-restrict');
    expect(why.fix).toContain('kernel.apparmor_restrict_unprivileged_userns=0');
  });

  it('names a disabled sysctl, and a zero namespace limit', () => {
    expect(explainRefusal(REFUSED, sysctls({ '/proc/sys/kernel/unprivileged_userns_clone': '0' })).fix).toBe(
      'sudo sysctl -w kernel.unprivileged_userns_clone=1',
    );
    expect(explainRefusal(REFUSED, sysctls({ '/proc/sys/user/max_user_namespaces': '0' })).fix).toContain(
      'user.max_user_namespaces',
    );
  });

  it('otherwise says what bwrap said and offers the container and sandbox.mode ways out', () => {
    const why = explainRefusal('bwrap: No permissions to create new namespace\n', sysctls({}));
    expect(why.problem).toBe(
      'bubblewrap could not start a sandbox: bwrap: No permissions to create new namespace',
    );
    expect(why.fix).toContain('sandbox.mode: none');
  });
});

describe("the probe of a session's network namespace", () => {
  const dir = mkdtempSync(join(tmpdir(), 'issueloop-probe-net-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = { PATH: process.env.PATH };

  it('passes with the real nsenter', async () => {
    expect(await probeSessionNetwork(await sandboxFacts(), dir, env)).toBeUndefined();
  });

  it("fails, naming util-linux, when nsenter does not join: the commands would share the host's network", async () => {
    // A stand-in that drops its namespace arguments and runs the command as it is.
    const fake = join(dir, 'nsenter');
    writeFileSync(fake, '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n');
    chmodSync(fake, 0o755);
    const why = await probeSessionNetwork({ ...(await sandboxFacts()), nsenter: fake }, dir, env);
    expect(why?.problem).toContain("could not join its session's network namespace");
    expect(why?.fix).toContain('util-linux');
  });

  it('fails when nsenter cannot run at all', async () => {
    const why = await probeSessionNetwork({ ...(await sandboxFacts()), nsenter: '/bin/false' }, dir, env);
    expect(why?.problem).toContain("could not join its session's network namespace");
  });
});
