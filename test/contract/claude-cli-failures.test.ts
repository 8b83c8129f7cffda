import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { type ApiErrorType, ERROR_STATUS, reply } from '../../src/emulators/anthropic/index.js';
import { claudeScope } from '../../src/engines/claude-code/claude-scope.js';
import { openModelAccess, PLACEHOLDER_PREFIXES } from '../../src/engines/claude-code/model-access.js';
import {
  claudeProjectDir,
  claudeProjectName,
  readSessionSeed,
  sessionFilePath,
} from '../../src/engines/claude-code/session-history.js';
import { createBwrapSandbox, UNSANDBOXED } from '../../src/sandbox/sandbox.js';
import { sandboxFacts } from '../helpers/sandbox.js';
import {
  CLAUDE_CODE_VERSION,
  claudeHarness,
  contractSuite,
  EMULATOR_KEY,
  ID,
  record,
} from './real-claude.js';

/**
 * The real `claude` CLI (the pinned release .ci/run installs) against the project's scripted Anthropic
 * server on loopback: its failures, logins, limits and sandbox, as the engine reads them (the stream,
 * costs and compaction: claude-cli.test.ts).
 */
const { real, contract, call } = contractSuite('the Claude Code contract suite (failures and limits)');

contract(`the real claude ${CLAUDE_CODE_VERSION} (contract)`, { timeout: 120_000 }, () => {
  it.each<[string, ApiErrorType, string, string]>([
    [
      '429',
      'rate_limit_error',
      'Number of request tokens has exceeded your per-minute rate limit',
      'rate_limit',
    ],
    ['529', 'overloaded_error', 'Overloaded', 'overloaded'],
    ['500', 'api_error', 'Internal server error', 'server_error'],
    ['401', 'authentication_error', 'invalid x-api-key', 'auth'],
    [
      '402',
      'billing_error',
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
      'billing',
    ],
    [
      'prompt too long',
      'invalid_request_error',
      'prompt is too long: 215000 tokens > 200000 maximum',
      'context_overflow',
    ],
  ])(
    'a %s is classified from the result (the CLI retries once here)',
    async (name, type, message, errorClass) => {
      const h = await claudeHarness({
        retries: 0,
        script: () => reply.error(ERROR_STATUS[type], type, message, { 'retry-after': '0' }),
      });
      const result = await call(h, 'do it', { session: { id: ID(3), resume: false } });
      await record(`result-${name.replace(/ /g, '-')}.json`, result.lines.at(-1) ?? '');
      expect(result.ok).toBe(false);
      expect(result.ok ? undefined : result.error.errorClass).toBe(errorClass);
      expect(result.sessionId).toBe(ID(3));
      expect(result.costUsd).toBe(0);
    },
  );

  // ANTHROPIC_API_KEY: the first test's call.
  it.each(['CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN'] as const)(
    'logs in headless with %s alone',
    async (credential) => {
      const h = await claudeHarness({ credential });
      const result = await call(h, 'hello');
      expect(result.ok).toBe(true);
      // The emulator takes only the real key: the CLI held a placeholder, the proxy put the key in.
      expect(h.messageRequests().some((r) => r.status === 200)).toBe(true);
      expect(h.env[credential]?.startsWith(PLACEHOLDER_PREFIXES[credential])).toBe(true);
      expect(JSON.stringify(h.env)).not.toContain(EMULATOR_KEY);
    },
  );

  it('without a credential: "Not logged in", classified auth (so the fallback can take over), no request made', async () => {
    const h = await claudeHarness({ credential: 'none' });
    const result = await call(h, 'hello');
    await record('result-not-logged-in.json', result.lines.at(-1) ?? '');
    expect(result.ok ? undefined : result.error.errorClass).toBe('auth');
    expect(result.text).toMatch(/Not logged in/);
    expect(h.messageRequests()).toEqual([]);
  });

  it('a call killed at its timeout still names its session (given up front), and its file, under a project path longer than 200 characters, seeds the fallback', async () => {
    const deep = Array.from({ length: 12 }, (_, i) => `a-rather-long-directory-name-${i}`).join('/');
    const h = await claudeHarness({ script: () => ({ hang: true }), project: deep });
    expect(claudeProjectName(h.worktree).length).toBeGreaterThan(200);
    const result = await call(h, 'the task that hangs', {
      session: { id: ID(5), resume: false },
      timeoutMs: 8_000,
    });
    expect(result).toMatchObject({ ok: false, sessionId: ID(5), error: { errorClass: 'timeout' } });
    const seed = await readSessionSeed({ claudeHome: h.claudeHome, cwd: h.worktree, sessionId: ID(5) });
    expect(seed?.turns.map((t) => t.text).join('\n')).toContain('the task that hangs');
    // The CLI shortens a long project name its own way: the one the claude sandbox shows is the CLI's.
    const path = await sessionFilePath(h.claudeHome, h.worktree, ID(5));
    expect(path).toBe(join(h.claudeHome, 'projects', claudeProjectDir(h.worktree), `${ID(5)}.jsonl`));
    expect(path).not.toContain(claudeProjectName(h.worktree));
  });

  it('--max-turns and --max-budget-usd stop the CLI; the stop is the limit, not a failure of the model', async () => {
    // A tool call first (a turn limit of one stops there), then answers; one session throughout.
    let requests = 0;
    const h = await claudeHarness({
      script: () =>
        requests++ === 0
          ? reply.toolUse([{ name: 'Bash', input: { command: 'true', description: 'nothing' } }])
          : reply.text('done'),
    });
    const first = await call(h, 'loop', { session: { id: ID(7), resume: false }, maxTurns: 1 });
    await record('result-max-turns.json', first.lines.at(-1) ?? '');
    expect(first).toMatchObject({ ok: false, limit: 'model_calls' });
    expect(first.sessionCostUsd).toBeGreaterThan(0);
    // The budget is what this process spends, not the session's running total: a resumed call under
    // it finishes though the session is past it; one over it stops after its first response.
    const under = await call(h, 'two', {
      session: { id: ID(7), resume: true },
      previousCostUsd: first.sessionCostUsd,
      maxBudgetUsd: first.sessionCostUsd / 2,
    });
    expect(under.ok).toBe(true);
    expect(under.costUsd).toBeLessThan(first.sessionCostUsd / 2);
    const over = await call(h, 'three', {
      session: { id: ID(7), resume: true },
      previousCostUsd: under.sessionCostUsd,
      maxBudgetUsd: under.costUsd / 10,
    });
    expect(over).toMatchObject({ ok: false, limit: 'cost' });
    expect(over.costUsd).toBeGreaterThan(0);
  });

  it("the model proxy's budget refusal (a 400) stops the CLI at once: no retry loop", async () => {
    // The first call runs (one call always may while budget is left) and spends it all; every call
    // after it is refused. A status the CLI retried would reach the proxy more often with retries on.
    const refusedWith = async (retries: number) => {
      const h = await claudeHarness({
        retries,
        script: () => reply.toolUse([{ name: 'Bash', input: { command: 'true', description: 'nothing' } }]),
      });
      const access = await openModelAccess({ env: h.hostEnv, prices: {}, tcp: true, budgetUsd: 0.000001 });
      if (!access) throw new Error('the harness holds a credential');
      try {
        const result = await call(h, 'loop', { env: { ...h.env, ...access.env(UNSANDBOXED) } });
        expect(result).toMatchObject({ ok: false, error: { status: 400, retryable: false } });
        expect(result.text).toContain("the session's budget is spent");
        expect(access.spent().responses).toBe(1);
        return access.spent().overBudget;
      } finally {
        await access.close();
      }
    };
    const once = await refusedWith(0);
    expect(once).toBeGreaterThan(0);
    expect(await refusedWith(3)).toBe(once);
  });

  it('in bubblewrap with a network namespace of its own (loopback only), it reaches the model proxy over ANTHROPIC_UNIX_SOCKET: no bridge, no TCP port', async () => {
    const h = await claudeHarness({});
    // A proxy on its Unix socket only; inside, the base URL names a port where nothing listens.
    const access = await openModelAccess({ env: h.hostEnv, prices: {}, tcp: false });
    if (!access) throw new Error('the harness holds a credential');
    try {
      // Each session has a fresh copy of the configuration; the worktree's project directory is the
      // real one, so a task group's next session resumes what the last one wrote.
      const inSandbox = async (prompt: string, resume: boolean) => {
        const scope = await claudeScope(real as string, h.hostEnv, [], h.worktree);
        const sandbox = createBwrapSandbox(
          {
            writable: [h.worktree],
            readOnly: scope.readOnly,
            home: { path: scope.home, binds: scope.homeBinds },
            extraMounts: [{ kind: 'bind', source: dirname(access.socket), dest: '/tmp/issueloop-model' }],
          },
          await sandboxFacts(),
        );
        const env = {
          PATH: h.env.PATH ?? '',
          HOME: h.home,
          ...access.env(sandbox),
          ANTHROPIC_UNIX_SOCKET: `/tmp/issueloop-model/${basename(access.socket)}`,
        };
        const result = await call(h, prompt, { env, sandbox, session: { id: ID(8), resume } });
        await rm(scope.scratch, { recursive: true, force: true });
        return result;
      };
      expect((await inSandbox('hello', false)).ok).toBe(true);
      expect(access.spent().responses).toBe(1);
      expect((await inSandbox('the next task', true)).ok).toBe(true);
      const seed = await readSessionSeed({ claudeHome: h.claudeHome, cwd: h.worktree, sessionId: ID(8) });
      expect(seed?.turns.map((t) => t.text).join('\n')).toMatch(/hello[\s\S]*the next task/);
    } finally {
      await access.close();
    }
  });
});
