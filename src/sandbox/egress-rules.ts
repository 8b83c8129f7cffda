import { isIP, isIPv4 } from 'node:net';

/**
 * What the egress proxy lets through, as pure functions: which names a role may ask for, on which
 * ports, and which addresses are never a destination whatever the name (the host itself, its
 * networks, anything that is not the public internet). Names are checked before resolution, addresses
 * after it, on every address a name resolves to.
 */

/** The ports a destination is reached on unless `sandbox.allow_ports` adds more: the web's. */
export const WEB_PORTS: readonly number[] = Object.freeze([80, 443]);

/**
 * `registry.npmjs.org` matches itself; `*.example.com` (or `.example.com`) matches its subdomains,
 * not the domain itself.
 */
export function matchesHost(host: string, allow: readonly string[]): boolean {
  const name = normalizeHost(host);
  return allow.some((entry) => {
    const rule = entry.toLowerCase();
    if (rule.startsWith('*.')) return name.endsWith(rule.slice(1));
    if (rule.startsWith('.')) return name.endsWith(rule);
    return name === rule;
  });
}

/** Lower case, without a trailing dot or IPv6 brackets. */
export function normalizeHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** Host and port of a CONNECT target (`host:443`, `[::1]:443`). */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+):(\d{1,5})$/i.exec(authority);
  if (!match?.[1] || !match[2]) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: normalizeHost(match[1]), port } : undefined;
}

/**
 * A host the proxy will look up: a DNS name of letters, digits, hyphens and dots. All-numeric names
 * that are not a dotted quad (`2130706433`, `127.1`, `0x7f.1`) are refused: the resolver reads them
 * as addresses in forms no rule here would recognise.
 */
export function isLookupName(host: string): boolean {
  if (host.length === 0 || host.length > 253 || !/^[a-z0-9_.-]+$/.test(host)) return false;
  const last = host.split('.').at(-1) ?? '';
  return !/^(0x[0-9a-f]*|[0-9]+)$/.test(last);
}

/** 4 or 16 bytes of an address in any textual form Node accepts, or undefined. */
export function addressBytes(address: string): number[] | undefined {
  const text = normalizeHost(address).replace(/%.*$/, '');
  if (isIPv4(text)) return text.split('.').map(Number);
  if (isIP(text) !== 6) return undefined;
  // A trailing dotted quad (`::ffff:127.0.0.1`) becomes the two groups it stands for.
  const head = text.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a, b, c, d) =>
    [Number(a) * 256 + Number(b), Number(c) * 256 + Number(d)].map((n) => n.toString(16)).join(':'),
  );
  const [left = '', right] = head.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const words = [...l, ...Array<number>(8 - l.length - r.length).fill(0), ...r];
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

type Prefix = readonly [bytes: readonly number[], bits: number];

function within(bytes: readonly number[], [prefix, bits]: Prefix): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if (((bytes[byte] ?? 0) & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}

/** Never a destination: this host, its networks, and what is not unicast on the public internet. */
const FORBIDDEN_V4: readonly Prefix[] = [
  [[0, 0, 0, 0], 8], // "this network", the unspecified address
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10], // carrier-grade NAT, often a cloud's internal network
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16], // link-local, cloud metadata services
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15], // benchmarking, used for internal networks
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, and 255.255.255.255 broadcast
];

const FORBIDDEN_V6: readonly Prefix[] = [
  [[], 128], // ::
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128], // ::1
  [[0xfc], 7], // unique-local
  [[0xfe, 0x80], 10], // link-local
  [[0xfe, 0xc0], 10], // site-local (deprecated, still routed by some)
  [[0xff], 8], // multicast
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64], // discard-only
  [[0x20, 0x01, 0, 0], 32], // Teredo: a tunnel, not a destination
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48], // local-use NAT64
];

/** IPv6 forms that carry an IPv4 address, and where: mapped, compatible, translated, NAT64, 6to4. */
const EMBEDDING_V4: ReadonlyArray<readonly [Prefix, number]> = [
  [[[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96], 12],
  [[[], 96], 12],
  [[[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], 96], 12],
  [[[0x00, 0x64, 0xff, 0x9b], 96], 12],
  [[[0x20, 0x02], 16], 2],
];

/** The IPv4 address an IPv6 one carries (`::ffff:127.0.0.1`, `2002:7f00:1::`), else the bytes as they are. */
function effectiveBytes(bytes: readonly number[]): readonly number[] {
  if (bytes.length === 4) return bytes;
  for (const [prefix, at] of EMBEDDING_V4) {
    if (within(bytes, prefix)) return bytes.slice(at, at + 4);
  }
  return bytes;
}

const key = (bytes: readonly number[]) => bytes.join('.');

/**
 * Why `address` may not be a destination, or undefined when it may. `hostAddresses` are this host's
 * own interface addresses (os.networkInterfaces()): a public address of the host is the host.
 */
export function forbiddenAddress(address: string, hostAddresses: readonly string[]): string | undefined {
  const raw = addressBytes(address);
  if (raw === undefined) return 'not an IP address';
  const bytes = effectiveBytes(raw);
  const v4 = bytes.length === 4;
  if (v4 && FORBIDDEN_V4.some((prefix) => within(bytes, prefix)))
    return 'a loopback, private or reserved address';
  if (!v4 && FORBIDDEN_V6.some((prefix) => within(bytes, prefix)))
    return 'a loopback, link-local, unique-local or reserved address';
  const own = new Set(
    hostAddresses.flatMap((a) => {
      const b = addressBytes(a);
      return b ? [key(effectiveBytes(b))] : [];
    }),
  );
  return own.has(key(bytes)) ? "one of this host's own addresses" : undefined;
}

/** `host:port` as the tally and the PR body show it: IPv6 in brackets. */
export function destination(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}
