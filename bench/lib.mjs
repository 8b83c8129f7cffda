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

/** issueloop's GitHub client talking in-process to `emulator`, with no pacing or retry waits. */
export async function emulatedGitHubClient(emulator, { clock, redact = (text) => text }) {
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
    writeSpacingMs: 0,
  });
}

/** A throwaway redis-server (src/sandbox/redis-server.ts); undefined when it is not installed. */
export async function startRedis() {
  const { findRedisServer, startRedisServer } = await import('../dist/sandbox/redis-server.js');
  return findRedisServer() ? startRedisServer() : undefined;
}
