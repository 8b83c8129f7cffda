import { describe, expect, it } from 'vitest';
import { ConfigSchema, SETUP_PRESETS } from '../../src/config/schema.js';
import {
  addressBytes,
  destination,
  forbiddenAddress,
  isLookupName,
  matchesHost,
  parseAuthority,
} from '../../src/sandbox/egress-rules.js';
import { rolePolicies } from '../../src/sandbox/sandbox-host.js';
import { detectPresets, REGISTRY_PRESETS, setupHosts } from '../../src/sandbox/setup-registries.js';

const forbidden = (address: string, own: string[] = []) => forbiddenAddress(address, own);

describe('the addresses the egress proxy never connects to', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['10.0.0.1', '10/8'],
    ['10.255.255.255', '10/8'],
    ['100.64.0.1', '100.64/10'],
    ['100.127.255.254', '100.64/10'],
    ['127.0.0.1', 'loopback'],
    ['127.53.1.9', 'loopback'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['172.16.0.1', '172.16/12'],
    ['172.31.255.255', '172.16/12'],
    ['192.168.1.1', '192.168/16'],
    ['192.0.0.170', 'IETF assignments'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback in brackets'],
    ['0:0:0:0:0:0:0:1', 'loopback written out'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback in hex'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::192.168.1.1', 'IPv4-compatible private'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
    ['64:ff9b::10.0.0.1', 'NAT64 of a private address'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['100::1', 'discard-only'],
  ])('%s (%s)', (address) => {
    expect(forbidden(address)).toBeDefined();
  });

  it.each([
    '198.51.100.7',
    '93.184.216.34',
    '172.32.0.1',
    '172.15.255.255',
    '100.63.255.255',
    '100.128.0.1',
    '11.0.0.1',
    '2606:4700::1111',
    '::ffff:93.184.216.34',
    '64:ff9b::93.184.216.34',
  ])('lets the public address %s through', (address) => {
    expect(forbidden(address)).toBeUndefined();
  });

  it("refuses the host's own addresses, in any form, even public ones", () => {
    const own = ['203.0.113.9', '2001:db8::9', '127.0.0.1'];
    expect(forbidden('203.0.113.9', own)).toBe("one of this host's own addresses");
    expect(forbidden('::ffff:203.0.113.9', own)).toBe("one of this host's own addresses");
    expect(forbidden('2001:db8:0:0:0:0:0:9', own)).toBe("one of this host's own addresses");
    expect(forbidden('203.0.113.10', own)).toBeUndefined();
  });

  it('refuses what is not an address at all', () => {
    expect(forbidden('localhost')).toBe('not an IP address');
    expect(forbidden('')).toBe('not an IP address');
  });

  it('parses every IPv6 form to the same bytes', () => {
    const loop = [...Array<number>(15).fill(0), 1];
    expect(addressBytes('::1')).toEqual(loop);
    expect(addressBytes('0::0:1')).toEqual(loop);
    expect(addressBytes('::0.0.0.1')).toEqual(loop);
    expect(addressBytes('::ffff:1.2.3.4')?.slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect(addressBytes('1:2:3:4:5:6:7:8')).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
    expect(addressBytes('1::')).toEqual([0, 1, ...Array<number>(14).fill(0)]);
  });
});

describe('names and ports', () => {
  it('matches a host exactly, and a wildcard only on subdomains', () => {
    const allow = ['registry.npmjs.org', '*.pythonhosted.org'];
    expect(matchesHost('registry.npmjs.org', allow)).toBe(true);
    expect(matchesHost('REGISTRY.npmjs.org.', allow)).toBe(true);
    expect(matchesHost('files.pythonhosted.org', allow)).toBe(true);
    expect(matchesHost('pythonhosted.org', allow)).toBe(false);
    expect(matchesHost('registry.npmjs.org.evil.test', allow)).toBe(false);
    expect(matchesHost('evilregistry.npmjs.org', allow)).toBe(false);
    expect(matchesHost('evil-pythonhosted.org', allow)).toBe(false);
  });

  it('regression: numeric host names the resolver reads as addresses are not names (2130706433 is 127.0.0.1)', () => {
    for (const host of ['2130706433', '127.1', '0x7f.1', '0x7f000001', '017700000001', '10.1'])
      expect(isLookupName(host)).toBe(false);
    for (const host of ['registry.npmjs.org', 'a1.example.com', '1password.com', 'x-y.test'])
      expect(isLookupName(host)).toBe(true);
    for (const host of ['', 'a b', 'evil.test\r\nx', 'a/b', 'ü.test']) expect(isLookupName(host)).toBe(false);
  });

  it('parses CONNECT authorities, IPv6 included, and rejects the rest', () => {
    expect(parseAuthority('registry.npmjs.org:443')).toEqual({ host: 'registry.npmjs.org', port: 443 });
    expect(parseAuthority('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
    expect(parseAuthority('::1:443')).toBeUndefined();
    expect(parseAuthority('no-port')).toBeUndefined();
    expect(parseAuthority('host:99999')).toBeUndefined();
    expect(parseAuthority('host:0')).toBeUndefined();
  });

  it('names a destination as host:port, IPv6 in brackets', () => {
    expect(destination('::1', 6379)).toBe('[::1]:6379');
    expect(destination('registry.test', 443)).toBe('registry.test:443');
  });
});

describe('setup_domains', () => {
  it('detects the ecosystems from top-level manifests and lockfiles', () => {
    expect(detectPresets(['package.json', 'README.md'])).toEqual(['npm']);
    expect(detectPresets(['yarn.lock'])).toEqual(['npm']);
    expect(detectPresets(['requirements-dev.txt', 'Cargo.lock'])).toEqual(['pypi', 'crates']);
    expect(detectPresets(['go.mod', 'Gemfile', 'pom.xml', 'uv.lock'])).toEqual([
      'pypi',
      'go',
      'rubygems',
      'maven',
    ]);
    expect(detectPresets(['my.gemspec', 'build.gradle.kts'])).toEqual(['rubygems', 'gradle']);
    expect(detectPresets(['pom.xml', 'settings.gradle'])).toEqual(['maven', 'gradle']);
    expect(detectPresets(['gradlew'])).toEqual(['gradle']);
    expect(detectPresets(['src', 'notes.txt', 'package.json.bak'])).toEqual([]);
  });

  it('expands auto and presets, keeps hosts, and always adds allow_domains', () => {
    const entries = () => ['package.json'];
    expect(setupHosts(['auto'], [], entries)).toEqual(['registry.npmjs.org', 'registry.yarnpkg.com']);
    expect(setupHosts(['auto', 'npm.pkg.github.com'], ['api.example.com'], entries)).toEqual([
      'registry.npmjs.org',
      'registry.yarnpkg.com',
      'npm.pkg.github.com',
      'api.example.com',
    ]);
    // Without auto nothing is detected: `[pypi]` is PyPI's alone.
    expect(setupHosts(['pypi'], [], entries)).toEqual(['pypi.org', 'files.pythonhosted.org']);
    expect(setupHosts([], ['x.test'], entries)).toEqual(['x.test']);
  });

  it('are validated in the config: presets and hosts, ports in range; defaults [auto] and []', () => {
    const sandbox = (value: Record<string, unknown>) => ConfigSchema.safeParse({ sandbox: value });
    const defaults = ConfigSchema.parse({}).sandbox;
    expect(defaults.setup_domains).toEqual(['auto']);
    expect(defaults.allow_ports).toEqual([]);
    expect(sandbox({ setup_domains: ['npm', 'auto', 'npm.pkg.github.com', '*.corp.example'] }).success).toBe(
      true,
    );
    expect(sandbox({ setup_domains: ['evil host'] }).success).toBe(false);
    expect(sandbox({ setup_domains: ['http://x.test'] }).success).toBe(false);
    expect(sandbox({ allow_ports: [8443] }).success).toBe(true);
    expect(sandbox({ allow_ports: [0] }).success).toBe(false);
    expect(sandbox({ allow_ports: [65_536] }).success).toBe(false);
  });

  it('gradle: the plugin portal, the wrapper distributions and Maven Central, detected from its build files', () => {
    expect(setupHosts(['auto'], [], () => ['build.gradle', 'src'])).toEqual([
      'plugins.gradle.org',
      'plugins-artifacts.gradle.org',
      'services.gradle.org',
      'downloads.gradle.org',
      'repo.maven.apache.org',
      'repo1.maven.org',
    ]);
    expect(setupHosts(['gradle'], [], () => [])).toContain('plugins.gradle.org');
    expect(ConfigSchema.safeParse({ sandbox: { setup_domains: ['gradle'] } }).success).toBe(true);
  });

  it("the config schema's presets are the sandbox's", () => {
    expect([...SETUP_PRESETS].sort()).toEqual(['auto', ...Object.keys(REGISTRY_PRESETS)].sort());
  });
});

describe('the allowlist of each role', () => {
  it('commands: allow_domains, or any public host with network: full; setup: its registries and allow_domains; claude: allow_domains', () => {
    // The base branch's top level holds a Cargo.toml.
    const base = ['Cargo.toml', 'src'];
    const settings = {
      mode: 'os' as const,
      read_only: [],
      allow_domains: ['api.example.com'],
      allow_ports: [8443],
    };
    const none = rolePolicies({ ...settings, network: 'none' }, base);
    expect(none.commands.hosts).toEqual(['api.example.com']);
    expect([...none.commands.ports]).toEqual([80, 443, 8443]);
    expect(none.setup.hosts).toEqual(['crates.io', 'index.crates.io', 'static.crates.io', 'api.example.com']);
    expect(none.claude.hosts).toEqual(['api.example.com']);
    const full = rolePolicies({ ...settings, network: 'full' }, base);
    expect(full.commands.hosts).toBe('any');
    // network: full is the commands' and verify's; setup and claude keep their lists.
    expect(full.setup.hosts).toEqual(none.setup.hosts);
    expect(full.claude.hosts).toEqual(['api.example.com']);
    const empty = rolePolicies({ mode: 'os', read_only: [], network: 'none' }, base);
    expect(empty.commands.hosts).toEqual([]);
    expect([...empty.commands.ports]).toEqual([80, 443]);
    // No base named: nothing detected (never the worktree's files).
    expect(rolePolicies({ ...settings, network: 'none' }).setup.hosts).toEqual(['api.example.com']);
  });
});
