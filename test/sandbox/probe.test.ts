import { describe, expect, it } from 'vitest';
import { explainRefusal } from '../../src/sandbox/probe.js';

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
