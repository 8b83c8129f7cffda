import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryClaimStore } from '../../src/claims/memory-claim-store.js';
import { createSeededRandom } from '../../src/core/random.js';
import { createRedactor } from '../../src/core/redact.js';
import { createAnthropicEmulator } from '../../src/emulators/anthropic/index.js';
import { createGitHubEmulator } from '../../src/emulators/github/index.js';
import type { ListeningEmulator } from '../../src/emulators/github/types.js';
import { openGitHubAdapter } from '../../src/github/adapter.js';
import { createAppTokenSource } from '../../src/github/app-auth.js';
import { commitAuthorFor } from '../../src/github/app-identity.js';
import { createGitHubClient } from '../../src/github/client.js';
import { resolveOrigin } from '../../src/run/resolve-origin.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import type { WorkContext } from '../../src/scheduler/work-item.js';
import { openLedger, readLedger } from '../../src/session/ledger.js';
import { createIssueSource } from '../../src/sources/issues/issue-source.js';
import { BASE, emulatedConfig } from '../github/emulated.js';
import { emulatedModels } from '../helpers/emulated-models.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { APP_ID, installedApp } from '../helpers/github-app.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { testSandboxHost } from '../helpers/sandbox.js';
import { memberIssue, originGit } from '../helpers/world.js';
import { GREETING_TYPO, useSessionRepo } from '../session/git/git-fixture.js';
import { agentScript } from './agent-script.js';

const repo = useSessionRepo(GREETING_TYPO);
let server: ListeningEmulator | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Three emulated minutes: a drain of three issues outlives several of them. */
const LIFETIME = 180_000;
/** What each model call takes on the shared clock. */
const MODEL_CALL_MS = 70_000;

interface Seen {
  rel: string;
  token: string;
  at: number;
  status: number;
}

/**
 * A run as openRun builds it, on one fake clock for GitHub, the token source and the scheduler: a
 * GitHub App whose tokens live three minutes, its bot as the commit author, three issues to resolve.
 * Origin is the emulator's git over HTTP, which judges a token's expiry by the same fake clock as
 * REST (git runs in real time, but no fake time passes while it does), and is given the App's
 * tokens as openRun gives them: resolveOrigin with the client's TokenSource, GitHub's host on loopback.
 */
async function appDrain(githubAheadMs = 0) {
  const clock = new FakeClock();
  const emulator = createGitHubEmulator({
    baseUrl: BASE,
    now: () => clock.now() + githubAheadMs,
    origin: repo.fx.origin,
  });
  const app = installedApp(emulator, { tokenLifetimeMs: LIFETIME });
  server = await emulator.serveGit();
  repo.fx.git(repo.fx.checkout, 'remote', 'set-url', 'origin', server.url);
  const env = { ...repo.fx.env, GITHUB_SERVER_URL: new URL(server.url).origin };
  const seen: Seen[] = [];
  // Every request as sent: which token it carried at what time on GitHub's clock, and the answer.
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const auth = new Headers(init?.headers).get('authorization') ?? '';
    const response = await emulator.fetch(input, init);
    seen.push({
      rel: url.pathname,
      token: auth.replace(/^\S+\s+/, ''),
      at: clock.now(),
      status: response.status,
    });
    return response;
  };
  const redact = createRedactor([]);
  const tokenSource = createAppTokenSource({
    appId: APP_ID,
    privateKey: app.privateKeyPem,
    repo: { owner: 'octo-org', name: 'widgets' },
    apiUrl: BASE,
    userAgent: 'issueloop/test',
    fetch,
    clock,
    onToken: (token) => redact.learn?.(token),
  });
  const log = createMemoryLog();
  const client = createGitHubClient({
    apiUrl: BASE,
    graphqlUrl: `${BASE}/graphql`,
    tokenSource,
    repo: { owner: 'octo-org', name: 'widgets' },
    userAgent: 'issueloop/test',
    fetch,
    log,
    clock,
    redact,
    retryUnitMs: 0,
    writeSpacingMs: 0,
  });
  const base = emulatedConfig({ verify: { command: 'grep -q "\'hello\'" greet.js' }, empty_rounds: 2 });
  const author = await commitAuthorFor(client, base.pr.author);
  const config = { ...base, pr: { ...base.pr, author } };
  const github = await openGitHubAdapter(client, config, { stateDir: repo.stateDir });
  const anthropic = createAnthropicEmulator({ script: agentScript });
  const deps = { clock, random: createSeededRandom(4), log };
  const slowModels = emulatedModels(
    {
      ...anthropic,
      fetch: async (input, init) => {
        clock.advance(MODEL_CALL_MS);
        return anthropic.fetch(input, init);
      },
    },
    deps,
    redact,
  );
  const claims = createMemoryClaimStore({ clock, maxFailures: config.claims.max_failures });
  const ledger = await openLedger({ stateDir: repo.stateDir, runId: 'app', clock, redact });
  const remote = await resolveOrigin(repo.fx.checkout, env, redact, client.tokenSource);
  const ctx: WorkContext = {
    config,
    source: createIssueSource({
      github,
      config,
      redact,
      checkout: repo.fx.checkout,
      remote,
      baseBranch: 'main',
      log,
      clock,
    }),
    claims,
    deps,
    ledger,
    signal: new AbortController().signal,
    checkout: repo.fx.checkout,
    worktreesDir: join(repo.stateDir, 'worktrees'),
    repo: 'octo-org/widgets',
    models: slowModels,
    env,
    redact,
    sandbox: await testSandboxHost(),
  };
  return { clock, emulator, app, seen, ctx, claims, ledger, log, author, remote, tokenSource };
}

describe('a drain with a GitHub App whose tokens expire mid-run', () => {
  it('renews the tokens for REST, GraphQL and git push, charges no issue, and commits as the bot', async () => {
    const { clock, emulator, app, seen, ctx, claims, ledger, log, author, remote, tokenSource } =
      await appDrain();
    const started = clock.now();
    const issues = [1, 2, 3].map((n) => emulator.addIssue(memberIssue(`Fix the greeting typo ${n}`)));

    const summary = await runRounds(ctx, { owner: 'host:1' });
    await ledger.flush();

    expect(summary.reports.map((r) => r.outcome)).toEqual(['resolved', 'resolved', 'resolved']);
    for (const issue of issues) {
      expect(await claims.get(issue)).toMatchObject({ last_outcome: 'resolved', failure_count: 0 });
    }
    // The drain outlived several tokens, and every request carried one GitHub still accepted.
    expect(clock.now() - started).toBeGreaterThan(3 * LIFETIME);
    const withToken = seen.filter((s) => s.token.startsWith('ghs_'));
    expect(withToken.filter((s) => s.status === 401)).toEqual([]);
    const distinct = (rel: (path: string) => boolean) =>
      new Set(withToken.filter((s) => rel(s.rel)).map((s) => s.token)).size;
    expect(distinct((path) => path !== '/graphql')).toBeGreaterThanOrEqual(3);
    expect(distinct((path) => path === '/graphql')).toBeGreaterThanOrEqual(2);
    const mints = seen.filter((s) => s.rel.endsWith('/access_tokens'));
    expect(mints.length).toBeGreaterThanOrEqual(3);

    // Git went to GitHub's git over HTTP with the App's token of the moment: every push landed, one
    // token per push here (each push is minutes of the fake clock after the last), none refused.
    expect(remote.credential?.kind).toBe(tokenSource.kind);
    expect(remote.url).toBe(server?.url);
    const gitRequests = emulator.gitRequests;
    const pushes = gitRequests.filter((r) => r.service === 'git-receive-pack' && r.method === 'POST');
    expect(pushes).toHaveLength(issues.length);
    expect(gitRequests.map((r) => r.status)).toEqual(gitRequests.map(() => 200));
    expect(gitRequests.every((r) => r.token?.startsWith('ghs_') && r.login === app.botLogin)).toBe(true);
    expect(new Set(pushes.map((r) => r.token)).size).toBeGreaterThan(1);
    const minted = new Set(withToken.map((s) => s.token));
    for (const push of pushes) expect(minted).toContain(push.token);

    // Commits by the App's bot user, as author and committer: every commit the drain pushed.
    expect(author).toEqual({
      name: 'issueloop-test[bot]',
      email: `${app.botId}+issueloop-test[bot]@users.noreply.github.com`,
    });
    const git = originGit(repo);
    const bot = `issueloop-test[bot] <${app.botId}+issueloop-test[bot]@users.noreply.github.com>`;
    for (const issue of issues) {
      const branch = `refs/heads/issueloop/issue-${issue}`;
      const who = git('log', '--format=%an <%ae>|%cn <%ce>', `main..${branch}`).split('\n');
      expect(who.length).toBeGreaterThan(0);
      expect(who).toEqual(who.map(() => `${bot}|${bot}`));
    }
    // The tracking comments are the bot's (a Bot with association NONE) and count as issueloop's.
    const tracking = emulator.comments(issues[0] ?? 0).filter((c) => c.body.includes('issueloop'));
    expect(tracking).toHaveLength(1);
    expect(tracking[0]).toMatchObject({
      user: { login: app.botLogin, type: 'Bot' },
      author_association: 'NONE',
    });

    // No minted token, nor the key or a line of it, reached the ledger, the log or the checkout's config.
    const ledgerText = JSON.stringify(await readLedger(ledger.file));
    const logText = JSON.stringify(log.entries);
    const config = await readFile(join(repo.fx.checkout, '.git', 'config'), 'utf8');
    expect(config).toContain(server?.url);
    for (const token of minted) {
      for (const text of [ledgerText, logText, config]) expect(text).not.toContain(token);
    }
    const keyLines = app.privateKeyPem.split('\n').filter((line) => line.length > 40);
    expect(keyLines.length).toBeGreaterThan(10);
    for (const line of keyLines) {
      for (const text of [ledgerText, logText, config]) expect(text).not.toContain(line);
    }
    expect(ledgerText).toContain('resolved');
  });

  it('renews a token GitHub refuses inside our renewal margin (its clock ahead of ours) and charges no issue', async () => {
    // GitHub's clock 170 s ahead: a 3-minute token is refused from 180 s after its mint on our clock,
    // while its expires_at (GitHub's time) keeps it fresh for us until 262 s. A request in between
    // is refused `Bad credentials`: the token is renewed and the request sent again.
    const { emulator, seen, ctx, claims, ledger } = await appDrain(170_000);
    const issues = [1, 2, 3].map((n) => emulator.addIssue(memberIssue(`Fix the greeting typo ${n}`)));

    const summary = await runRounds(ctx, { owner: 'host:1' });
    await ledger.flush();

    expect(summary.reports.map((r) => r.outcome)).toEqual(['resolved', 'resolved', 'resolved']);
    for (const issue of issues) {
      expect(await claims.get(issue)).toMatchObject({ last_outcome: 'resolved', failure_count: 0 });
    }
    const refused = seen.filter((s) => s.token.startsWith('ghs_') && s.status === 401);
    expect(refused.length).toBeGreaterThan(0);
    for (const refusal of refused) {
      const after = seen.slice(seen.indexOf(refusal) + 1);
      // A fresh token minted, then the same request again with it, taken.
      expect(after[0]?.rel).toMatch(/\/access_tokens$/);
      const again = after.find((s) => s.rel === refusal.rel);
      expect(again?.token).not.toBe(refusal.token);
      expect(again?.status).toBeLessThan(400);
    }
    const gitRequests = emulator.gitRequests;
    const pushes = gitRequests.filter((r) => r.service === 'git-receive-pack' && r.method === 'POST');
    expect(pushes.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(gitRequests.map((r) => r.status)).toEqual(gitRequests.map(() => 200));
    const ledgerText = JSON.stringify(await readLedger(ledger.file));
    expect(ledgerText).toContain('resolved');
    expect(ledgerText).not.toMatch(/Bad credentials|error:auth/);
  });
});
