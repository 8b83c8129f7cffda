import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, connect, createServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShell } from '../../src/agent/tools/run-shell.js';
import type { BlockedRequest } from '../../src/sandbox/blocked-requests.js';
import { type EgressNetwork, MODEL_PORT } from '../../src/sandbox/domain-proxy.js';
import { type CommandSandbox, UNSANDBOXED } from '../../src/sandbox/sandbox.js';
import type { WorktreeSandboxes } from '../../src/sandbox/sandbox-host.js';
import { worktreeGitDirs, writeAgentGitDir } from '../../src/session/git/worktree-view.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { redisGet, useRedisServer } from '../helpers/redis-server.js';
import { testSandboxHost } from '../helpers/sandbox.js';

/**
 * Issue 29's attacks, through the real bubblewrap, nsenter and the session's proxies, for each role:
 * a hostile script (reach-out.mjs) reaches for a loopback Redis, loopback HTTP on 127.0.0.1 and ::1,
 * a host abstract socket, and the proxy with CONNECT to loopback addresses and names that
 * resolves to loopback. The host-side servers' own records say whether anything arrived. The same
 * script run unsandboxed reaches them all, so the checks below can fail.
 *
 * Every address here is loopback. "Public" hosts are names the injected resolver maps to
 * documentation addresses, which the injected connect maps to a loopback server.
 */
const PUBLIC = '198.51.100.7';
const redis = useRedisServer();
let root: string;
let worktree: string;
let sandboxes: WorktreeSandboxes;
let http4: Server;
let http6: Server;
let registry: Server;
let abstract: NetServer;
let model: Server;
const abstractName = `issueloop-egress-test-${process.pid}`;
const seen = {
  http: [] as string[],
  abstract: [] as string[],
  registry: [] as string[],
  model: [] as string[],
};
const connects: string[] = [];
const log = createMemoryLog();

const network: EgressNetwork = {
  lookup: async (host) => {
    const zone: Record<string, string> = {
      'registry.test': PUBLIC,
      'registry.npmjs.org': PUBLIC,
      'rebind.test': '127.0.0.1',
      localhost: '127.0.0.1',
    };
    const address = zone[host];
    if (!address) throw new Error(`ENOTFOUND ${host}`);
    return [{ address, family: 4 }];
  },
  connect: (_port, address) => {
    connects.push(address);
    // Only the documentation address is "the internet"; anything else would be a leak.
    return connect(address === PUBLIC ? (registry.address() as AddressInfo).port : 1, '127.0.0.1');
  },
};

/** npm's registry answers for one package, served by the stand-in registry over plain HTTP. */
const LEFT_PAD_PACKUMENT = JSON.stringify({
  name: 'left-pad',
  'dist-tags': { latest: '1.0.0' },
  versions: {
    '1.0.0': {
      name: 'left-pad',
      version: '1.0.0',
      dist: { tarball: 'http://registry.npmjs.org/left-pad/-/left-pad-1.0.0.tgz' },
    },
  },
});

function npmTarball(dir: string): Buffer {
  const pkg = join(dir, 'left-pad-src', 'package');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), '{"name":"left-pad","version":"1.0.0"}\n');
  writeFileSync(join(pkg, 'index.js'), 'module.exports = (s, n) => String(s).padStart(n);\n');
  return execFileSync('tar', ['-czf', '-', '-C', join(dir, 'left-pad-src'), 'package']);
}

function listen(server: Server | NetServer, host: string): Promise<void> {
  return new Promise((resolve) => server.listen(0, host, () => resolve()));
}
const portOf = (server: Server) => (server.address() as AddressInfo).port;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-egress-')));
  const checkout = join(root, 'checkout');
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
  git(root, 'init', '-q', '-b', 'main', checkout);
  writeFileSync(join(checkout, 'package.json'), '{"name":"victim","version":"1.0.0"}\n');
  git(checkout, 'add', '.');
  git(checkout, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'init');
  worktree = join(root, 'worktrees', 'issue-1');
  git(checkout, 'worktree', 'add', '-q', '-b', 'issueloop/issue-1', worktree);
  const agentGitDir = join(root, 'worktrees', '.issue-1.git');
  const dirs = await worktreeGitDirs(worktree);
  await writeAgentGitDir(dirs, 'issueloop/issue-1', agentGitDir);
  copyFileSync(join(import.meta.dirname, 'reach-out.mjs'), join(worktree, 'reach-out.mjs'));

  const record = (list: string[]) =>
    createHttpServer((req, res) => {
      list.push(req.url ?? '');
      res.end('hi');
    });
  http4 = record(seen.http);
  http6 = record(seen.http);
  const tarball = npmTarball(root);
  registry = createHttpServer((req, res) => {
    seen.registry.push(`${req.headers.host}${req.url}`);
    if (req.url === '/left-pad') res.setHeader('content-type', 'application/json').end(LEFT_PAD_PACKUMENT);
    else if (req.url === '/left-pad/-/left-pad-1.0.0.tgz') res.end(tarball);
    else res.end(`registry ok ${req.url}`);
  });
  abstract = createServer((socket) =>
    socket.setEncoding('utf8').on('data', (chunk: string) => seen.abstract.push(chunk)),
  );
  await Promise.all([listen(http4, '127.0.0.1'), listen(http6, '::1'), listen(registry, '127.0.0.1')]);
  await new Promise<void>((resolve) => abstract.listen(`\0${abstractName}`, resolve));
  model = createHttpServer((req, res) => {
    seen.model.push(req.url ?? '');
    res.end('model proxy here');
  });
  await new Promise<void>((resolve) => model.listen(join(root, 'model.sock'), resolve));

  const host = await testSandboxHost(
    { network: 'none', allow_domains: ['registry.test', 'rebind.test'], setup_domains: ['auto'] },
    { network },
  );
  // The base's top level, where setup's registries are detected: npm's, from its package.json.
  sandboxes = await host.forWorktree({ worktree, git: dirs, agentGitDir, log, setupBase: ['package.json'] });
}, 60_000);

afterAll(async () => {
  await sandboxes?.close();
  for (const server of [http4, http6, registry, abstract, model]) server?.close();
  rmSync(root, { recursive: true, force: true });
});

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' };

async function reachOut(sandbox: CommandSandbox, marker: string, extra: Record<string, unknown> = {}) {
  const cfg = {
    marker,
    redisPort: redis.server.port,
    http4Port: portOf(http4),
    http6Port: portOf(http6),
    abstract: abstractName,
    ...extra,
  };
  const result = await runShell(`node reach-out.mjs '${JSON.stringify(cfg)}'`, {
    cwd: worktree,
    env,
    timeoutMs: 30_000,
    maxOutputChars: 50_000,
    signal: new AbortController().signal,
    sandbox,
  });
  expect(result.exitCode, result.output).toBe(0);
  return JSON.parse(result.output.trim().split('\n').at(-1) ?? '{}') as Record<string, string>;
}

const HOSTILE = [
  'direct redis 127.0.0.1',
  'direct http 127.0.0.1',
  'direct http localhost',
  'direct http [::1]',
  'abstract unix socket',
  'CONNECT 127.0.0.1 redis',
  'CONNECT [::1] http',
  'CONNECT rebind.test (resolves to 127.0.0.1)',
  'CONNECT localhost',
  'CONNECT 2130706433 (127.0.0.1 as a number)',
  'GET via proxy 127.0.0.1',
  'GET via proxy rebind.test',
];

/** Nothing of `marker` arrived at any host-side service. */
async function expectNothingArrived(marker: string) {
  expect(await redisGet(redis.server.port, marker)).toBe('$-1\r\n');
  expect(seen.http.filter((url) => url.includes(marker))).toEqual([]);
  expect(seen.abstract.filter((data) => data.includes(marker))).toEqual([]);
}

describe('control: the same script, unsandboxed', () => {
  it('reaches every host-side service directly, so the checks below can fail', async () => {
    const results = await reachOut(UNSANDBOXED, 'control-marker');
    for (const name of HOSTILE.filter((n) => n.startsWith('direct') || n.startsWith('abstract')))
      expect(results[name], name).toMatch(/^reached/);
    expect(await redisGet(redis.server.port, 'control-marker')).toBe('$1\r\n1\r\n');
    expect(seen.http).toContain('/control-marker');
    expect(seen.abstract.join('')).toContain('control-marker');
  });
});

describe.each([
  ['commands', 'registry.test'],
  ['setup', 'registry.npmjs.org'],
  ['claude', 'registry.test'],
] as const)('the %s role', (role, honest) => {
  const marker = `pwned-by-${role}`;
  let results: Record<string, string>;
  let blocked: BlockedRequest[];

  beforeAll(async () => {
    const sandbox =
      role === 'claude'
        ? await sandboxes.claude({
            home: join(root, 'home'),
            homeBinds: [],
            readOnly: [],
            modelSocket: join(root, 'model.sock'),
          })
        : role === 'setup'
          ? await sandboxes.setup()
          : sandboxes.commands;
    connects.length = 0;
    results = await reachOut(sandbox, marker, { honest, modelPort: MODEL_PORT });
    blocked = sandboxes.blocked().filter((entry) => entry.role === role);
  }, 60_000);

  it.each(HOSTILE)('cannot reach the host: %s', (name) => {
    expect(results[name]).toMatch(/^refused/);
  });

  it('left nothing in Redis, on the HTTP servers or on the abstract socket', async () => {
    await expectNothingArrived(marker);
  });

  it('the proxy connected only to the public address it checked', () => {
    expect(connects.filter((address) => address !== PUBLIC)).toEqual([]);
  });

  it('reaches its allowed host through the proxy, plain HTTP and CONNECT', () => {
    expect(results['honest GET']).toMatch(/^reached HTTP\/1.1 200/);
    expect(seen.registry).toContain(`${honest}/ok-${marker}`);
    expect(results['honest CONNECT']).toMatch(/^reached HTTP\/1.1 200 OK registry ok/);
  });

  it('counted every refused destination for the session, by role', () => {
    const destinations = blocked.map((entry) => entry.destination);
    expect(destinations).toEqual(
      expect.arrayContaining([
        `127.0.0.1:${redis.server.port}`,
        `[::1]:${portOf(http6)}`,
        'rebind.test:80',
        'localhost:80',
        `127.0.0.1:${portOf(http4)}`,
      ]),
    );
  });

  it('logged each refused destination once, with its role and why', () => {
    const warned = log.entries.filter((entry) => entry.fields.role === role && entry.level === 'warn');
    const destinations = warned.map((entry) => entry.fields.destination);
    expect(new Set(destinations).size).toBe(destinations.length);
    // rebind.test:80 was refused twice (CONNECT and a plain GET), logged once.
    expect(blocked.find((entry) => entry.destination === 'rebind.test:80')?.count).toBe(2);
    expect(warned.find((entry) => entry.fields.destination === 'rebind.test:80')?.msg).toBe(
      `sandbox: refused ${role}'s request for rebind.test:80: resolves to 127.0.0.1, a loopback, private or reserved address`,
    );
  });

  it(role === 'claude' ? 'reaches the model proxy at 127.0.0.1:MODEL_PORT' : 'has no model port', () => {
    if (role === 'claude') {
      expect(results['model port']).toMatch(/^reached HTTP\/1.1 200/);
      expect(seen.model).toContain(`/v1/models?from=${marker}`);
    } else {
      expect(results['model port']).toMatch(/^refused ECONNREFUSED/);
      expect(seen.model.filter((url) => url.includes(marker))).toEqual([]);
    }
  });
});

describe("Node's own fetch", () => {
  it('goes through the proxy where the role may reach a host (NODE_USE_ENV_PROXY), and is refused elsewhere', async () => {
    const fetchIn = (url: string) =>
      runShell(
        `node -e "fetch('${url}').then(async (r) => console.log(r.status, await r.text())).catch((e) => console.log('failed', e.cause?.code ?? e.message))"`,
        {
          cwd: worktree,
          env,
          timeoutMs: 20_000,
          maxOutputChars: 10_000,
          signal: new AbortController().signal,
          sandbox: sandboxes.commands,
        },
      );
    expect((await fetchIn('http://registry.test/fetched')).output).toBe('200 registry ok /fetched\n');
    expect(seen.registry).toContain('registry.test/fetched');
    expect((await fetchIn(`http://127.0.0.1:${portOf(http4)}/fetch-direct`)).output).toMatch(/^failed/);
    expect(seen.http).not.toContain('/fetch-direct');
  });
});

describe("setup's honest work", () => {
  it('npm installs a package from its (stand-in) registry through the proxy; the commands cannot', async () => {
    const install = (sandbox: CommandSandbox) =>
      runShell('npm install left-pad --no-audit --no-fund --no-package-lock --no-save', {
        cwd: worktree,
        // The stand-in registry speaks plain HTTP; the proxy settings are the sandbox's own.
        env: { ...env, npm_config_registry: 'http://registry.npmjs.org/', npm_config_fetch_retries: '0' },
        timeoutMs: 60_000,
        maxOutputChars: 20_000,
        signal: new AbortController().signal,
        sandbox,
      });
    const commands = await install(sandboxes.commands);
    expect(commands.exitCode).not.toBe(0);
    expect(existsSync(join(worktree, 'node_modules', 'left-pad'))).toBe(false);
    // Refused by the proxy, not failed on the way: npm did ask it.
    expect(sandboxes.blocked()).toContainEqual(
      expect.objectContaining({ role: 'commands', destination: 'registry.npmjs.org:80' }),
    );
    const setup = await install(await sandboxes.setup());
    expect(setup.exitCode, setup.output).toBe(0);
    expect(readFileSync(join(worktree, 'node_modules', 'left-pad', 'index.js'), 'utf8')).toContain(
      'padStart',
    );
    expect(seen.registry).toEqual(
      expect.arrayContaining([
        'registry.npmjs.org/left-pad',
        'registry.npmjs.org/left-pad/-/left-pad-1.0.0.tgz',
      ]),
    );
    rmSync(join(worktree, 'node_modules'), { recursive: true, force: true });
  }, 120_000);
});

describe('the two-step setup attack', () => {
  it("regression: a preinstall script the agent added to package.json runs in setup's confinement: its registry in reach, the host's services not", async () => {
    const cfg = {
      marker: 'pwned-by-preinstall',
      redisPort: redis.server.port,
      http4Port: portOf(http4),
      http6Port: portOf(http6),
      abstract: abstractName,
      honest: 'registry.npmjs.org',
    };
    const manifest = {
      name: 'victim',
      version: '1.0.0',
      scripts: { preinstall: `node reach-out.mjs '${JSON.stringify(cfg)}' > preinstall.json` },
    };
    writeFileSync(join(worktree, 'package.json'), JSON.stringify(manifest));
    const setup = await runShell('npm install --no-audit --no-fund', {
      cwd: worktree,
      env,
      timeoutMs: 60_000,
      maxOutputChars: 50_000,
      signal: new AbortController().signal,
      sandbox: await sandboxes.setup(),
    });
    expect(setup.exitCode, setup.output).toBe(0);
    const results = JSON.parse(readFileSync(join(worktree, 'preinstall.json'), 'utf8')) as Record<
      string,
      string
    >;
    for (const name of HOSTILE) expect(results[name], name).toMatch(/^refused/);
    await expectNothingArrived(cfg.marker);
    // Detected from the base's package.json: npm's registry (here the stand-in) is what setup may reach.
    expect(results['honest GET']).toMatch(/^reached HTTP\/1.1 200/);
    expect(seen.registry).toContain('registry.npmjs.org/ok-pwned-by-preinstall');
  }, 90_000);
});

describe("the namespace's descriptors", () => {
  it('do not reach the command, and could not be used from inside to join another namespace', async () => {
    const script = [
      'import ctypes, os',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'tried = 0',
      'for fd in os.listdir("/proc/self/fd"):',
      '    link = os.readlink(f"/proc/self/fd/{fd}") if os.path.exists(f"/proc/self/fd/{fd}") else ""',
      '    if link.startswith(("user:", "net:")):',
      '        tried += 1',
      '        print("setns", link.split(":")[0], libc.setns(int(fd), 0), ctypes.get_errno())',
      'print("now", os.readlink("/proc/self/ns/net"))',
      'print("tried", tried)',
    ].join('\n');
    writeFileSync(join(worktree, 'setns.py'), script);
    const result = await runShell('python3 setns.py', {
      cwd: worktree,
      env,
      timeoutMs: 20_000,
      maxOutputChars: 10_000,
      signal: new AbortController().signal,
      sandbox: sandboxes.commands,
    });
    expect(result.exitCode, result.output).toBe(0);
    const lines = result.output.trim().split('\n');
    // Every attempt failed with EPERM (1); the process is still in the session's namespace.
    for (const line of lines.filter((l) => l.startsWith('setns '))) expect(line).toMatch(/ -1 1$/);
    const before = lines.find((l) => l.startsWith('now net:'));
    const again = await runShell('readlink /proc/self/ns/net', {
      cwd: worktree,
      env,
      timeoutMs: 20_000,
      maxOutputChars: 1000,
      signal: new AbortController().signal,
      sandbox: sandboxes.commands,
    });
    expect(before).toBe(`now ${again.output.trim()}`);
    // nsenter opens them by path through the harness's own descriptors: none reaches the command (it
    // passed the two on before, which setns refused; fix-os, inherited descriptors).
    expect(lines).toContain('tried 0');
  });
});
