import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  decide,
  type EgressNetwork,
  type EgressProxy,
  startEgressProxy,
} from '../../src/sandbox/domain-proxy.js';
import { httpRequest } from '../helpers/http-request.js';

/**
 * "The internet" here: names resolve to documentation addresses (198.51.100.0/24, 2001:db8::/32),
 * and the injected connect maps those to a loopback server. A name resolving to loopback or a private
 * address must never reach connect at all.
 */
const ZONE: Record<string, string[]> = {
  'registry.test': ['198.51.100.7'],
  'v6.test': ['2001:db8::7'],
  'rebind.test': ['127.0.0.1'],
  'rebind6.test': ['::1'],
  'mixed.test': ['198.51.100.7', '10.0.0.1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'self.test': ['198.51.100.99'],
};

let upstream: Server;
let upstreamPort: number;
const connects: string[] = [];
const network: EgressNetwork = {
  lookup: async (host) => {
    const found = ZONE[host];
    if (!found) throw new Error(`ENOTFOUND ${host}`);
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  },
  connect: (port, address) => {
    connects.push(`${address}:${port}`);
    return connect(upstreamPort, '127.0.0.1');
  },
  hostAddresses: () => ['127.0.0.1', '::1', '198.51.100.99'],
};
const ports = new Set([80, 443]);

beforeAll(async () => {
  upstream = createServer((req, res) =>
    res.end(`upstream ${req.method} ${req.url} host=${req.headers.host}`),
  );
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
});
beforeEach(() => {
  connects.length = 0;
});

describe('decide', () => {
  const any = { hosts: 'any' as const, ports };

  it('lets a public name through at the address it resolved to', async () => {
    expect(await decide('registry.test', 443, any, network)).toEqual({ ok: true, address: '198.51.100.7' });
    expect(await decide('v6.test', 443, any, network)).toEqual({ ok: true, address: '2001:db8::7' });
  });

  it.each(['rebind.test', 'rebind6.test', 'mixed.test', 'mapped.test', 'metadata.test', 'self.test'])(
    'regression: refuses %s, a name that resolves to a forbidden address (DNS rebinding)',
    async (host) => {
      const decision = await decide(host, 443, any, network);
      expect(decision).toMatchObject({ ok: false, status: 403 });
    },
  );

  it('refuses IP literals of the host and private ranges, and other ports', async () => {
    for (const host of ['127.0.0.1', '[::1]', '10.0.0.1', '192.168.1.1', '198.51.100.99', '::ffff:10.0.0.1'])
      expect(await decide(host, 443, any, network)).toMatchObject({ ok: false, status: 403 });
    expect(await decide('registry.test', 6379, any, network)).toMatchObject({ ok: false, status: 403 });
    expect(await decide('registry.test', 6379, { hosts: 'any', ports: new Set([6379]) }, network)).toEqual({
      ok: true,
      address: '198.51.100.7',
    });
  });

  it('checks the allowlist before resolving anything', async () => {
    let lookups = 0;
    const counting = {
      ...network,
      lookup: async (host: string) => {
        lookups += 1;
        return (await network.lookup?.(host)) ?? [];
      },
    };
    const policy = { hosts: ['registry.test'], ports };
    expect(await decide('evil.test', 443, policy, counting)).toMatchObject({ ok: false, status: 403 });
    expect(lookups).toBe(0);
    expect(await decide('registry.test', 443, policy, counting)).toMatchObject({ ok: true });
    expect(lookups).toBe(1);
  });

  it('says 502, not refused, when a name does not resolve', async () => {
    expect(await decide('nowhere.test', 443, any, network)).toMatchObject({ ok: false, status: 502 });
  });
});

describe('the egress proxy on its Unix socket', () => {
  let dir: string;
  let proxy: EgressProxy;
  let socket: string;
  const refused: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'issueloop-egress-test-'));
    socket = join(dir, 'egress.sock');
    proxy = await startEgressProxy({
      socket,
      policy: { hosts: ['registry.test', 'rebind.test', 'v6.test'], ports },
      network,
      onRefused: (destination) => refused.push(destination),
    });
  });
  afterAll(async () => {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const viaProxy = (url: string, agent?: Agent) =>
    httpRequest({ socketPath: socket, path: url, method: 'GET', agent });

  const tunnel = (authority: string) =>
    new Promise<string>((resolve) => {
      const client: Socket = connect(socket);
      let answer = '';
      client.on('connect', () => client.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
      client.setEncoding('utf8').on('data', (chunk: string) => {
        answer += chunk;
        if (answer.includes('\r\n\r\n')) {
          client.destroy();
          resolve(answer.split('\r\n')[0] ?? '');
        }
      });
      client.on('close', () => resolve(answer.split('\r\n')[0] ?? ''));
    });

  it('forwards an allowed host to the address it checked, with the Host header it asked for', async () => {
    const answer = await viaProxy('http://registry.test/pkg?x=1');
    expect(answer).toEqual({ status: 200, body: 'upstream GET /pkg?x=1 host=registry.test' });
    expect(connects).toEqual(['198.51.100.7:80']);
    expect(await tunnel('registry.test:443')).toBe('HTTP/1.1 200 Connection Established');
  });

  it('checks every request of a kept-alive connection on its own, and connects each to its own address', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await viaProxy('http://registry.test/a', agent)).status).toBe(200);
      expect((await viaProxy('http://v6.test/b', agent)).status).toBe(200);
      expect((await viaProxy('http://rebind.test/c', agent)).status).toBe(403);
      expect(connects).toEqual(['198.51.100.7:80', '2001:db8::7:80']);
    } finally {
      agent.destroy();
    }
  });

  it('refuses and counts every other destination; connect is never called for them', async () => {
    refused.length = 0;
    expect((await viaProxy('http://evil.test/exfiltrate')).status).toBe(403);
    expect((await viaProxy('http://rebind.test/')).status).toBe(403);
    for (const authority of [
      '127.0.0.1:6379',
      '[::1]:443',
      '10.0.0.1:443',
      '192.168.1.1:80',
      'rebind.test:443',
    ])
      expect(await tunnel(authority)).toBe('HTTP/1.1 403 Forbidden');
    expect(await tunnel('registry.test:22')).toBe('HTTP/1.1 403 Forbidden');
    expect(connects).toEqual([]);
    expect(refused).toEqual([
      'evil.test:80',
      'rebind.test:80',
      '127.0.0.1:6379',
      '[::1]:443',
      '10.0.0.1:443',
      '192.168.1.1:80',
      'rebind.test:443',
      'registry.test:22',
    ]);
  });

  it('answers a relative or https request with 400 and a malformed CONNECT with 403', async () => {
    expect((await viaProxy('/relative')).status).toBe(400);
    expect((await viaProxy('https://registry.test/')).status).toBe(400);
    expect(await tunnel('no-port')).toBe('HTTP/1.1 403 Forbidden');
    expect(connects).toEqual([]);
  });
});
