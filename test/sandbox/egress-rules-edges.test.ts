import { describe, expect, it } from 'vitest';
import {
  forbiddenAddress,
  isLookupName,
  matchesHost,
  normalizeHost,
  parseAuthority,
} from '../../src/sandbox/egress-rules.js';

/** The egress rules at their edges: each case is a request a slip in one rule would let out. */
const PRIVATE_V4 = 'a loopback, private or reserved address';
const PRIVATE_V6 = 'a loopback, link-local, unique-local or reserved address';

describe('names', () => {
  it('regression: a rule written .example.com matches the subdomains only, as *.example.com does', () => {
    expect(matchesHost('api.example.com', ['.example.com'])).toBe(true);
    expect(matchesHost('example.com', ['.example.com'])).toBe(false);
    expect(matchesHost('evilexample.com', ['.example.com'])).toBe(false);
    expect(matchesHost('example.com.', ['example.com'])).toBe(true);
  });

  it('takes brackets off a whole IPv6 host only', () => {
    expect(normalizeHost('[::1]')).toBe('::1');
    expect(normalizeHost('[::1]x')).toBe('[::1]x');
    expect(normalizeHost('x[::1]')).toBe('x[::1]');
  });

  it('regression: a name is at most 253 characters, and not empty', () => {
    const label = 'a'.repeat(63);
    const longest = [label, label, label, 'a'.repeat(61)].join('.');
    expect(longest).toHaveLength(253);
    expect(isLookupName(longest)).toBe(true);
    expect(isLookupName(`${longest}a`)).toBe(false);
    expect(isLookupName('')).toBe(false);
  });

  it('refuses only a last label that is all digits or hex, not one that holds some', () => {
    expect(isLookupName('host.example1')).toBe(true);
    expect(isLookupName('host.1abc')).toBe(true);
    expect(isLookupName('cdn.0xyz')).toBe(true);
    expect(isLookupName('host.0x7f')).toBe(false);
    expect(isLookupName('host.123')).toBe(false);
  });
});

describe('CONNECT authorities', () => {
  it('regression: nothing may follow the port, and the port is 1 to 65535', () => {
    expect(parseAuthority('example.com:443')).toEqual({ host: 'example.com', port: 443 });
    expect(parseAuthority('example.com:443/evil')).toBeUndefined();
    expect(parseAuthority('example.com:4430000')).toBeUndefined();
    expect(parseAuthority('example.com:65535')).toEqual({ host: 'example.com', port: 65535 });
    expect(parseAuthority('example.com:65536')).toBeUndefined();
    expect(parseAuthority('example.com:0')).toBeUndefined();
  });
});

describe('addresses', () => {
  it('says which kind of address it refuses', () => {
    expect(forbiddenAddress('10.1.2.3', [])).toBe(PRIVATE_V4);
    expect(forbiddenAddress('fd00::1', [])).toBe(PRIVATE_V6);
    expect(forbiddenAddress('93.184.216.34', [])).toBeUndefined();
  });

  it('regression: a link-local address with a zone (fe80::1%eth0) is refused as link-local, not misread', () => {
    expect(forbiddenAddress('fe80::1%eth0', [])).toBe(PRIVATE_V6);
    expect(forbiddenAddress('[fe80::1%25eth0]', [])).toBe(PRIVATE_V6);
  });

  it('regression: a public IPv4 address is taken as it is, never read as an IPv6 form that embeds another', () => {
    // 32.2.x.x begins like 6to4 (2002::/16) would; read as one, 32.2.10.1 would become 10.1.x.x.
    expect(forbiddenAddress('32.2.10.1', [])).toBeUndefined();
    // Read as IPv6 bytes, these would fall in :: and fc00::/7.
    expect(forbiddenAddress('32.2.0.0', [])).toBeUndefined();
    expect(forbiddenAddress('32.2.252.1', [])).toBeUndefined();
    expect(forbiddenAddress('2002:0a01:0203::', [])).toBe(PRIVATE_V4);
  });

  it("regression: the host's own addresses are compared byte for byte (1.23.4.5 is not 12.3.4.5)", () => {
    expect(forbiddenAddress('1.23.4.5', ['12.3.4.5'])).toBeUndefined();
    expect(forbiddenAddress('12.3.4.5', ['12.3.4.5', 'not an address'])).toBe(
      "one of this host's own addresses",
    );
  });
});
