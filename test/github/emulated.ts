import { type Config, ConfigSchema } from '../../src/config/schema.js';
import { createRedactor } from '../../src/core/redact.js';
import { createGitHubEmulator, type GitHubEmulator } from '../../src/emulators/github/index.js';
import { type GitHubAdapter, openGitHubAdapter } from '../../src/github/adapter.js';
import { createGitHubClient, type GitHubClient } from '../../src/github/client.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog, type LogEntry } from '../helpers/memory-log.js';

export const BASE = 'https://api.github.test';
export const TOKEN = 'ghp_emulator';

export interface Emulated {
  emulator: GitHubEmulator;
  client: GitHubClient;
  adapter: GitHubAdapter;
  config: Config;
  log: LogEntry[];
  /** A second process on the same state directory (after a crash: nothing in memory survives). */
  reopen(): Promise<GitHubAdapter>;
}

export function emulatedConfig(overrides: Record<string, unknown> = {}): Config {
  return ConfigSchema.parse({ repo: 'octo-org/widgets', ...overrides });
}

export function emulatedClient(emulator: GitHubEmulator, log: LogEntry[] = [], token = TOKEN): GitHubClient {
  return createGitHubClient({
    apiUrl: BASE,
    graphqlUrl: `${BASE}/graphql`,
    token,
    repo: { owner: 'octo-org', name: 'widgets' },
    userAgent: 'issueloop/test',
    fetch: emulator.fetch,
    log: createMemoryLog(log),
    clock: new FakeClock(),
    redact: createRedactor([token]),
    retryUnitMs: 0,
    writeSpacingMs: 0,
  });
}

export async function emulated(
  stateDir: string,
  options: { config?: Record<string, unknown>; emulator?: GitHubEmulator; token?: string } = {},
): Promise<Emulated> {
  const emulator = options.emulator ?? createGitHubEmulator({ baseUrl: BASE });
  const config = emulatedConfig(options.config);
  const log: LogEntry[] = [];
  const client = emulatedClient(emulator, log, options.token);
  const adapter = await openGitHubAdapter(client, config, { stateDir });
  return {
    emulator,
    client,
    adapter,
    config,
    log,
    reopen: async () => openGitHubAdapter(emulatedClient(emulator, log, options.token), config, { stateDir }),
  };
}
