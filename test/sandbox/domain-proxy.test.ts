import { createServer, request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DomainProxy,
  isAllowedHost,
  parseAuthority,
  startDomainProxy,
} from '../../src/sandbox/domain-proxy.js';

describe('isAllowedHost', () => {
  it('matches a host exactly, and a wildcard only on subdomains', () => {
    const allow = ['registry.npmjs.org', '*.pythonhosted.org'];
    expect(isAllowedHost('registry.npmjs.org', allow)).toBe(true);
    expect(isAllowedHost('REGISTRY.npmjs.org.', allow)).toBe(true);
    expect(isAllowedHost('files.pythonhosted.org', allow)).toBe(true);
    expect(isAllowedHost('pythonhosted.org', allow)).toBe(false);
    expect(isAllowedHost('registry.npmjs.org.evil.test', allow)).toBe(false);
    expect(isAllowedHost('evilregistry.npmjs.org', allow)).toBe(false);
    expect(isAllowedHost('evil-pythonhosted.org', allow)).toBe(false);
  });

  it('regression: only on ports 80 and 443 (CONNECT reached any port of an allowed host)', () => {
    expect(isAllowedHost('registry.npmjs.org', ['registry.npmjs.org'], 80)).toBe(true);
    expect(isAllowedHost('registry.npmjs.org', ['registry.npmjs.org'], 22)).toBe(false);
    expect(isAllowedHost('registry.npmjs.org', ['registry.npmjs.org'], 6379)).toBe(false);
  });

  it('parses CONNECT authorities, IPv6 included, and rejects the rest', () => {
    expect(parseAuthority('registry.npmjs.org:443')).toEqual({ host: 'registry.npmjs.org', port: 443 });
    expect(parseAuthority('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
    expect(parseAuthority('no-port')).toBeUndefined();
    expect(parseAuthority('host:99999')).toBeUndefined();
  });
});

describe('the domain proxy on its Unix socket', () => {
  let upstream: Server;
  let proxy: DomainProxy;
  const denied: string[] = [];
  beforeAll(async () => {
    upstream = createServer((req, res) =>
      res.end(`upstream ${req.method} ${req.url} host=${req.headers.host}`),
    );
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    proxy = await startDomainProxy({
      allow: ['registry.test'],
      connect: () => connect(port, '127.0.0.1'),
      onDenied: (host) => denied.push(host),
    });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  const viaProxy = (url: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ socketPath: proxy.socket, path: url, method: 'GET' }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject).end();
    });

  it('forwards a plain HTTP request to an allowed host', async () => {
    expect(await viaProxy('http://registry.test/left-pad?v=1')).toEqual({
      status: 200,
      body: 'upstream GET /left-pad?v=1 host=registry.test',
    });
  });

  it('refuses any other host with a 403 that names the setting, and reports it', async () => {
    const answer = await viaProxy('http://evil.test/steal');
    expect(answer.status).toBe(403);
    expect(answer.body).toBe('issueloop sandbox: evil.test is not in sandbox.allow_domains\n');
    expect(denied).toContain('evil.test');
  });

  it('refuses a CONNECT to any other host', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ socketPath: proxy.socket, method: 'CONNECT', path: 'evil.test:443' });
      req.on('connect', (res, socket) => {
        socket.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.on('response', (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject).end();
    });
    expect(status).toBe(403);
  });
});
