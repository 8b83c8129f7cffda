import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryClaimStore } from '../../src/claims/memory-claim-store.js';
import { createSeededRandom } from '../../src/core/random.js';
import { createRedactor } from '../../src/core/redact.js';
import { createAnthropicEmulator } from '../../src/emulators/anthropic/index.js';
import { createGitHubEmulator } from '../../src/emulators/github/index.js';
import { openGitHubAdapter } from '../../src/github/adapter.js';
import { createAppTokenSource } from '../../src/github/app-auth.js';
import { commitAuthorFor } from '../../src/github/app-identity.js';
import { createGitHubClient } from '../../src/github/client.js';
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
 */
async function appDrain() {
  const clock = new FakeClock();
  const emulator = createGitHubEmulator({ baseUrl: BASE, now: () => clock.now() });
  const app = installedApp(emulator, { tokenLifetimeMs: LIFETIME });
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
  const ctx: WorkContext = {
    config,
    source: createIssueSource({
      github,
      config,
      redact,
      checkout: repo.fx.checkout,
      remote: 'origin',
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
    env: repo.fx.env,
    redact,
    sandbox: await testSandboxHost(),
  };
  return { clock, emulator, app, seen, ctx, claims, ledger, log, author };
}

describe('a drain with a GitHub App whose tokens expire mid-run', () => {
  it('renews the tokens for REST and GraphQL, charges no issue, and commits as the bot', async () => {
    const { clock, emulator, app, seen, ctx, claims, ledger, log, author } = await appDrain();
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

    // Commits by the App's bot user, as author and committer.
    expect(author).toEqual({
      name: 'issueloop-test[bot]',
      email: `${app.botId}+issueloop-test[bot]@users.noreply.github.com`,
    });
    const git = originGit(repo);
    for (const issue of issues) {
      const who = git('log', '-1', '--format=%an <%ae>|%cn <%ce>', `refs/heads/issueloop/issue-${issue}`);
      const bot = `issueloop-test[bot] <${app.botId}+issueloop-test[bot]@users.noreply.github.com>`;
      expect(who).toBe(`${bot}|${bot}`);
    }
    // The tracking comments are the bot's (a Bot with association NONE) and count as issueloop's.
    const tracking = emulator.comments(issues[0] ?? 0).filter((c) => c.body.includes('issueloop'));
    expect(tracking).toHaveLength(1);
    expect(tracking[0]).toMatchObject({
      user: { login: app.botLogin, type: 'Bot' },
      author_association: 'NONE',
    });

    // No minted token reached the ledger or the log.
    const ledgerText = JSON.stringify(await readLedger(ledger.file));
    const logText = JSON.stringify(log.entries);
    for (const token of new Set(withToken.map((s) => s.token))) {
      expect(ledgerText).not.toContain(token);
      expect(logText).not.toContain(token);
    }
    expect(ledgerText).toContain('resolved');
  });
});
