// What the benchmarks share: the dist/ check, a silent logger, a GitHub client on the emulator, and a
// throwaway redis-server.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Benchmarks measure the built code: without dist/ they say how to get it and stop. */
export function requireDist(bench, file) {
  if (!existsSync(fileURLToPath(new URL(`../dist/${file}`, import.meta.url)))) {
    console.error(`bench/${bench}: dist/ is missing; run \`npm run build\` first`);
    process.exit(1);
  }
}

export const silentLog = { debug() {}, info() {}, warn() {}, error() {}, child: () => silentLog };

/** The base URL the in-process GitHub emulator answers on. */
export const EMULATED_GITHUB = 'https://api.github.test';

/**
 * issueloop's GitHub client talking in-process to `emulator`, with no retry waits and writes paced
 * `writeSpacingMs` apart (none unless given).
 */
export async function emulatedGitHubClient(emulator, { clock, redact = (text) => text, writeSpacingMs = 0 }) {
  const { createGitHubClient } = await import('../dist/github/client.js');
  return createGitHubClient({
    apiUrl: EMULATED_GITHUB,
    graphqlUrl: `${EMULATED_GITHUB}/graphql`,
    token: 'ghp_emulator',
    repo: { owner: 'octo-org', name: 'widgets' },
    userAgent: 'issueloop/bench',
    fetch: emulator.fetch,
    log: silentLog,
    clock,
    redact,
    retryUnitMs: 0,
    writeSpacingMs,
  });
}

/**
 * What runRounds needs for a whole issue run in this process, as `issueloop run` builds it: the issue
 * source on the GitHub emulator (through `client`), a memory claim store, a real ledger, the system
 * clock, and the agent's commands under bubblewrap (sandbox.mode: os).
 */
export async function issueRunContext({
  config,
  client,
  stateDir,
  checkout,
  env,
  runId,
  modelFetch,
  anthropic,
}) {
  const { createMemoryClaimStore } = await import('../dist/claims/memory-claim-store.js');
  const { systemClock } = await import('../dist/core/clock.js');
  const { createSeededRandom } = await import('../dist/core/random.js');
  const { createRedactor } = await import('../dist/core/redact.js');
  const { openGitHubAdapter } = await import('../dist/github/adapter.js');
  const { openModels } = await import('../dist/run/open-run.js');
  const { openSandbox } = await import('../dist/run/open-sandbox.js');
  const { createIssueSource } = await import('../dist/sources/issues/issue-source.js');
  const { openLedger } = await import('../dist/session/ledger.js');
  const { join } = await import('node:path');
  const redact = createRedactor([]);
  const deps = { clock: systemClock, random: createSeededRandom(7), log: silentLog };
  return {
    config,
    source: createIssueSource({
      github: await openGitHubAdapter(client, config, { stateDir }),
      config,
      redact,
      checkout,
      remote: 'origin',
      baseBranch: 'main',
      log: silentLog,
      clock: systemClock,
    }),
    claims: createMemoryClaimStore({ clock: systemClock, maxFailures: config.claims.max_failures }),
    deps,
    ledger: await openLedger({ stateDir, runId, clock: systemClock, redact }),
    signal: new AbortController().signal,
    checkout,
    worktreesDir: join(stateDir, 'worktrees'),
    repo: 'octo-org/widgets',
    models: openModels({ config, deps, redact, fetch: modelFetch }, anthropic.apiKey, anthropic.baseUrl),
    env,
    redact,
    sandbox: await openSandbox(config, env, silentLog),
  };
}

/** A throwaway redis-server (src/emulators/redis-server.ts); undefined when it is not installed. */
export async function startRedis() {
  const { findRedisServer, startRedisServer } = await import('../dist/emulators/redis-server.js');
  return findRedisServer() ? startRedisServer() : undefined;
}
