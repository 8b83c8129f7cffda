import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicEmulator, reply } from '../../../src/emulators/anthropic/index.js';
import { PLACEHOLDER_PREFIXES } from '../../../src/engines/claude-code/model-access.js';
import { claudeProjectDir } from '../../../src/engines/claude-code/session-history.js';
import { BUILT_IN_PRICES, costOf } from '../../../src/model/prices.js';
import { type SandboxHost, UNSANDBOXED_HOST } from '../../../src/sandbox/sandbox-host.js';
import { GREETING_TYPO, useSessionRepo } from '../../session/git/git-fixture.js';
import { claudeCodeIssueSession } from './claude-code-issue.js';

/**
 * The model credential never reaches `claude`, tried as an attacker would: a hostile stand-in
 * (fake-claude/hostile-claude) dumps its environment, /proc, its home and configuration, and calls
 * the model proxy. The real credentials are in the harness's environment and in every place Claude
 * Code keeps a login; none of them may appear in what it wrote, in the report or in the ledger.
 */
const HOSTILE = fileURLToPath(new URL('./fake-claude/hostile-claude', import.meta.url));
const repo = useSessionRepo(GREETING_TYPO);

const REAL_KEY = 'sk-ant-api03-REAL-harness-key-7f3a9c';
const OAUTH = 'sk-ant-oat01-REAL-login-token-b81d2e';
const REFRESH = 'sk-ant-ort01-REAL-refresh-token-55c0aa';
const PRIMARY = 'sk-ant-api03-REAL-approved-key-0e4d11';
const IN_SETTINGS = 'sk-ant-api03-REAL-settings-key-a9f7b3';
const HELPER = 'sk-ant-api03-REAL-helper-key-6c2e90';
const REAL = [REAL_KEY, OAUTH, REFRESH, PRIMARY, IN_SETTINGS, HELPER];

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A home whose Claude Code configuration holds a login in every place the CLI keeps one. */
async function homeWithLogins(): Promise<{ home: string; dump: string }> {
  const home = await mkdtemp(join(tmpdir(), 'issueloop-hostile-'));
  dirs.push(home);
  // The issue's worktree's directory: the one place of its home that outlives the sandbox.
  const own = join(
    home,
    '.claude',
    'projects',
    claudeProjectDir(join(repo.stateDir, 'worktrees', 'issue-1')),
  );
  await mkdir(own, { recursive: true });
  await writeFile(
    join(home, '.claude', '.credentials.json'),
    JSON.stringify({ claudeAiOauth: { accessToken: OAUTH, refreshToken: REFRESH, expiresAt: 1 } }),
  );
  await writeFile(
    join(home, '.claude', 'settings.json'),
    JSON.stringify({
      model: 'sonnet',
      apiKeyHelper: `echo ${HELPER}`,
      env: {
        ANTHROPIC_API_KEY: IN_SETTINGS,
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
        BASH_DEFAULT_TIMEOUT_MS: '5000',
      },
    }),
  );
  await writeFile(join(home, '.claude.json'), JSON.stringify({ numStartups: 3, primaryApiKey: PRIMARY }));
  return { home, dump: join(own, 'dump.txt') };
}

function expectNoSecret(text: string): void {
  for (const secret of REAL) expect(text).not.toContain(secret);
}

/**
 * A session of the hostile stand-in (writing what it saw to `dump`), in `sandbox` (bubblewrap unless
 * given), with the real key in the harness's environment. Its model is a scripted API on loopback
 * (the proxy's endpoint, whatever reaches it) that takes the real key only: a 200 is the proof the
 * proxy put it there. The native engine is not expected.
 */
async function hostileSession(home: string, dump: string, sandbox?: SandboxHost) {
  const api = createAnthropicEmulator({
    apiKey: REAL_KEY,
    baseUrl: 'http://127.0.0.1/',
    script: () => reply.text('hi'),
  });
  const server = await api.listen();
  try {
    const ran = await claudeCodeIssueSession({
      repo,
      bin: HOSTILE,
      claudeCode: { fallback: 'none' },
      env: { HOME: home, ANTHROPIC_API_KEY: REAL_KEY, ANTHROPIC_BASE_URL: server.url, HOSTILE_DUMP: dump },
      native: () => reply.text('(the native engine was not expected)'),
      ...(sandbox ? { sandbox } : {}),
    });
    return { ...ran, api, apiUrl: server.url };
  } finally {
    await server.close();
  }
}

describe('the model credential never reaches claude (a hostile stand-in)', () => {
  it('in the sandbox: its environment, /proc and its home hold placeholders and settings, never a credential', async () => {
    const { home, dump } = await homeWithLogins();
    const { report, ledger, api, apiUrl } = await hostileSession(home, dump);
    expect(report.outcome).toBe('resolved');
    // In bubblewrap its one model call reached the API through the bridge at 127.0.0.1:MODEL_PORT and
    // the proxy, with the real key (the scripted API takes no other); its other calls were refused.
    expect(api.requests.map((r) => [r.method, r.path, r.status])).toEqual([
      ['POST', '/v1/messages?beta=true', 200],
    ]);
    const seen = await readFile(dump, 'utf8');
    expect(seen).toMatch(/=== proxy POST \/v1\/messages\n200 [^\n]*message_start/);
    expect(seen).toMatch(/=== proxy GET \/v1\/models\n403 /);
    expect(seen).not.toContain(apiUrl);
    // It did read what it was after: its environment, its home's configuration (scrubbed copies).
    expect(seen).toMatch(
      new RegExp(`"ANTHROPIC_API_KEY": "${PLACEHOLDER_PREFIXES.ANTHROPIC_API_KEY}[0-9a-f]{32}"`),
    );
    expect(seen).toContain('numStartups');
    expect(seen).toContain('BASH_DEFAULT_TIMEOUT_MS');
    expect(seen).toContain('/proc/self/environ');
    expect(seen).not.toContain('.credentials.json');
    expect(seen).not.toContain('apiKeyHelper');
    expectNoSecret(seen);
    expectNoSecret(JSON.stringify(report));
    expectNoSecret(await readFile(ledger.file, 'utf8'));
    // The user's own files are untouched: the copy was scrubbed, not the original.
    expect(await readFile(join(home, '.claude.json'), 'utf8')).toContain(PRIMARY);
  });

  it('unconfined: its calls reach the API through the proxy with the real key, which it never sees; other calls are refused', async () => {
    const home = await mkdtemp(join(tmpdir(), 'issueloop-hostile-'));
    dirs.push(home);
    const dump = join(home, 'dump.txt');
    const { report, ledger, api, apiUrl } = await hostileSession(home, dump, UNSANDBOXED_HOST);
    expect(report.outcome).toBe('resolved');
    const seen = await readFile(dump, 'utf8');
    expect(seen).toMatch(/=== proxy POST \/v1\/messages\n200 [^\n]*message_start/);
    expect(seen).toMatch(/=== proxy GET \/v1\/models\n403 [^\n]*permission_error/);
    expect(seen).toMatch(/=== proxy GET \/api\/oauth\/profile\n403 /);
    expect(seen).not.toContain(apiUrl);
    expectNoSecret(seen);
    expectNoSecret(JSON.stringify(report));
    expectNoSecret(await readFile(ledger.file, 'utf8'));
    expect(api.requests.map((r) => [r.method, r.path, r.status])).toEqual([
      ['POST', '/v1/messages?beta=true', 200],
    ]);
    // The session's cost is what the API served through the proxy, at the price table's rates.
    const served = api.cacheStats();
    expect(served.requests).toBe(1);
    expect(report.costUsd).toBeCloseTo(costOf(served, BUILT_IN_PRICES.sonnet), 12);
    expect(report.costUsd).toBeGreaterThan(0);
  });
});
