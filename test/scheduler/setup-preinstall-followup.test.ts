import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer, type Server as NetServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStatus } from '../../src/cli/commands/status.js';
import { rolePolicies, type SandboxHost, type WorktreeView } from '../../src/sandbox/sandbox-host.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { redisGet, useRedisServer } from '../helpers/redis-server.js';
import { hostileSetup } from './agent-script.js';
import { roundsFixture } from './rounds-fixture.js';

/**
 * Issue 29's two-step setup attack through whole runs: session 1's agent adds a `preinstall` script
 * to package.json (and the script it runs, test/sandbox/reach-out.mjs); the PR's GitHub Actions check
 * fails; the follow-up's `session.setup` (`npm install`) runs the hook on the PR's branch. It reaches
 * for a loopback Redis, loopback HTTP on 127.0.0.1 and ::1 and a host abstract socket, directly and
 * through setup's proxy. Nothing arrives; the follow-up's report and ledger list what setup's proxy
 * refused; the honest fix is still pushed. And setup's registries (`setup_domains: [auto]`) are
 * detected from the PR's base, so the package.json the agent added opened none of them.
 *
 * The setup command is `npm install` only where a package.json exists (the base has none, and npm
 * would otherwise write one); `--no-package-lock` keeps npm's lockfile out of the follow-up's commit.
 */
const { repo, resolvedWithRealRefs } = roundsFixture();
const redis = useRedisServer();
const MARKER = 'pwned-by-two-step-setup';
const SETUP = '[ ! -f package.json ] || npm install --no-audit --no-fund --no-package-lock';
const heard: string[] = [];
const heardAbstract: string[] = [];
const abstractName = `issueloop-two-step-${process.pid}`;
let http4: Server;
let http6: Server;
let abstract: NetServer;

const portOf = (server: Server) => (server.address() as AddressInfo).port;
const listen = (server: Server | NetServer, host?: string) =>
  new Promise<void>((resolve) =>
    host ? server.listen(0, host, resolve) : server.listen(`\0${abstractName}`, resolve),
  );

beforeAll(async () => {
  const record = () =>
    createHttpServer((req, res) => {
      heard.push(req.url ?? '');
      res.end('host service');
    });
  http4 = record();
  http6 = record();
  abstract = createServer((socket) =>
    socket.setEncoding('utf8').on('data', (c: string) => heardAbstract.push(c)),
  );
  await Promise.all([listen(http4, '127.0.0.1'), listen(http6, '::1'), listen(abstract)]);
  const cfg = {
    marker: MARKER,
    redisPort: redis.server.port,
    http4Port: portOf(http4),
    http6Port: portOf(http6),
    abstract: abstractName,
  };
  hostileSetup.script = readFileSync(join(import.meta.dirname, '../sandbox/reach-out.mjs'), 'utf8');
  hostileSetup.manifest = `${JSON.stringify({
    name: 'widgets',
    version: '1.0.0',
    scripts: { preinstall: `node reach-out.mjs '${JSON.stringify(cfg)}' > /dev/null` },
  })}\n`;
});

afterAll(() => {
  for (const server of [http4, http6, abstract]) server?.close();
});

describe('the two-step setup attack, through a follow-up', () => {
  it("regression: a preinstall hook added by session 1 runs in the follow-up's setup confinement: nothing reaches the host, refusals listed under setup, the honest fix pushed", {
    timeout: 90_000,
  }, async () => {
    const fixture = await resolvedWithRealRefs({ session: { setup: SETUP } }, 'please add-a-preinstall');
    const { emulator, ctx, newSource, issue, pr, branch, failCheck } = fixture;
    const views: WorktreeView[] = [];
    const sandbox: SandboxHost = {
      mode: ctx.sandbox.mode,
      forWorktree: (view) => {
        views.push(view);
        return ctx.sandbox.forWorktree(view);
      },
    };
    // Step one landed: the hook is on the PR's branch.
    expect(repo.fx.git(repo.fx.origin, 'show', `${branch}:package.json`)).toContain('"preinstall"');
    failCheck();
    const second = await runRounds(
      { ...ctx, sandbox, source: newSource() },
      { owner: 'host:2', maxRounds: 2 },
    );
    expect(second.reports.map((r) => [r.issue, r.outcome, r.reason])).toEqual([
      [issue, 'resolved', `pushed to PR #${pr.number} (follow-up 1: failing checks)`],
    ]);

    expect(await redisGet(redis.server.port, MARKER)).toBe('$-1\r\n');
    expect(heard).toEqual([]);
    expect(heardAbstract).toEqual([]);

    // The hook did run (its tunnels reached setup's proxy, which refused them): the checks above can fail.
    const refused = [
      { role: 'setup', destination: `127.0.0.1:${redis.server.port}`, count: 1 },
      { role: 'setup', destination: `[::1]:${portOf(http6)}`, count: 1 },
      { role: 'setup', destination: 'localhost:80', count: 1 },
    ];
    expect(second.reports[0]?.blockedRequests).toEqual(expect.arrayContaining(refused));
    await ctx.ledger.flush();
    const status = await readStatus(repo.stateDir, [], Date.now());
    const logged = status.lastRun?.issues.find((i) => i.issue === issue)?.blockedRequests;
    expect(logged).toEqual(expect.arrayContaining(refused));
    expect(logged?.every((entry) => entry.role === 'setup')).toBe(true);

    // setup_domains [auto] read the PR's base (main: no package.json), not the branch the agent
    // wrote: its package.json opened no registry to setup.
    expect(views.map((view) => view.setupBase)).toEqual([['README.md', 'greet.js', 'src']]);
    expect(
      rolePolicies({ mode: 'os', read_only: [], network: 'none' }, views[0]?.setupBase).setup.hosts,
    ).toEqual([]);

    // The honest fix is on the same PR.
    expect(repo.fx.git(repo.fx.origin, 'show', `${branch}:greet.test.js`)).toContain("greet() === 'hello'");
    expect(emulator.pulls().map((p) => p.number)).toEqual([pr.number]);
  });
});
