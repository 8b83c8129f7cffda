import { readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { type ApiErrorType, ERROR_STATUS, reply, scriptQueue } from '../../src/emulators/anthropic/index.js';
import { type ClaudeCodeRunOptions, runClaudeCode } from '../../src/engines/claude-code/claude-code-run.js';
import { claudeScope } from '../../src/engines/claude-code/claude-scope.js';
import { createClaudeCodeConversation } from '../../src/engines/claude-code/conversation.js';
import { openModelAccess, PLACEHOLDER_PREFIXES } from '../../src/engines/claude-code/model-access.js';
import {
  claudeProjectDir,
  claudeProjectName,
  readSessionSeed,
  sessionFilePath,
} from '../../src/engines/claude-code/session-history.js';
import { COMPACTION_REQUEST } from '../../src/engines/engine.js';
import { costOf, priceOf } from '../../src/model/prices.js';
import { createBwrapSandbox, UNSANDBOXED } from '../../src/sandbox/sandbox.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { sandboxFacts } from '../helpers/sandbox.js';
import {
  CLAUDE_CODE_VERSION,
  claudeHarness,
  contractSuite,
  EMULATOR_KEY,
  record,
  sessionFileText,
} from './real-claude.js';

/**
 * The Claude Code engine against the real `claude` CLI (the pinned release .ci/run installs), pointed
 * at the project's scripted Anthropic server on loopback: what the fake `claude` of the engine's
 * other tests imitates is checked here against the real thing, and recorded from it.
 */
const { real, contract } = contractSuite('the Claude Code contract suite');

type Harness = Awaited<ReturnType<typeof claudeHarness>>;

function call(h: Harness, prompt: string, extra: Partial<ClaudeCodeRunOptions> = {}) {
  const lines: string[] = [];
  const result = runClaudeCode({
    bin: real as string,
    cwd: h.worktree,
    model: 'claude-sonnet-5-5',
    prompt,
    env: h.env,
    permissionMode: 'acceptEdits',
    allowedTools: ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep'],
    timeoutMs: 90_000,
    onLine: (line) => lines.push(line),
    ...extra,
  });
  return result.then((r) => ({ ...r, lines }));
}

const ID = (n: number) => `0000000${n}-1111-4222-8333-444444444444`;

contract(`the real claude ${CLAUDE_CODE_VERSION} (contract)`, { timeout: 120_000 }, () => {
  it('accepts the argv issueloop passes; the stream and its result are read (a tool call, then the answer)', async () => {
    let worktree = '';
    // The Write tool wants an absolute path: the script reads the worktree when the request comes.
    const h = await claudeHarness({
      script: scriptQueue([
        () =>
          reply.toolUse([{ name: 'Write', input: { file_path: join(worktree, 'x.txt'), content: 'hi\n' } }]),
        reply.text('Wrote x.txt.'),
      ]),
    });
    worktree = h.worktree;
    const result = await call(h, 'write x.txt', { session: { id: ID(1), resume: false } });
    await record('stream-tool-call.jsonl', result.lines.join('\n'));
    expect(result).toMatchObject({
      ok: true,
      text: 'Wrote x.txt.',
      sessionId: ID(1),
      modelCalls: 2,
      toolCalls: 1,
    });
    expect(await readFile(join(h.worktree, 'x.txt'), 'utf8')).toBe('hi\n');
    expect(result.contextWindow).toBeGreaterThan(0);
    // A fresh session's call costs what its total says.
    expect(result.costUsd).toBeGreaterThan(0);
    expect(result.costUsd).toBeCloseTo(result.sessionCostUsd, 9);
    // The context is the newest request, not the sum of both requests (each re-read the prompt).
    const summed =
      result.usage.input + result.usage.cacheWrite + result.usage.cacheRead + result.usage.output;
    expect(result.contextTokens).toBeLessThan(summed);
    expect(result.contextTokens).toBeGreaterThan(summed / 2 - 1_000);
  });

  it('a resumed 4-task group: each call costs its own share, and the shares add up to the CLI total', async () => {
    const h = await claudeHarness({});
    const costs: number[] = [];
    let total = 0;
    let naive = 0;
    const conversation = createClaudeCodeConversation({
      run: async ({ prompt, session, previousCostUsd }) => {
        const r = await call(h, prompt, { session, previousCostUsd });
        costs.push(r.costUsd);
        total = r.sessionCostUsd;
        naive += r.sessionCostUsd; // what adding the totals recorded
        if (costs.length === 2) await record('stream-resumed.jsonl', r.lines.join('\n'));
        return r;
      },
      threshold: 0.8,
      contextWindow: 200_000,
      log: createMemoryLog(),
    });
    for (const task of ['task one', 'task two', 'task three', 'task four']) {
      expect((await conversation.send(task)).result.ok).toBe(true);
    }
    const recorded = costs.reduce((a, b) => a + b, 0);
    console.log(
      `contract figures: 4-task group recorded $${recorded.toFixed(6)}, CLI total (list prices) $${total.toFixed(6)}, adding totals would record $${naive.toFixed(6)}`,
    );
    expect(recorded).toBeCloseTo(total, 9);
    expect(naive).toBeGreaterThan(1.5 * total);
    expect(h.messageRequests().length).toBeGreaterThanOrEqual(4);
    // What the proxy read from the streams, priced by issueloop's table, against what the emulator served.
    const served = h.emulator.cacheStats();
    const expected = costOf(served, priceOf('claude-sonnet-5-5'));
    const measured = h.spent();
    console.log(
      `contract figures: through the proxy ${measured?.responses} responses, ${JSON.stringify(measured?.usage)} = $${measured?.costUsd.toFixed(6)}; the emulator served ${served.requests} responses, ${JSON.stringify({ ...served, requests: undefined })} = $${expected.toFixed(6)} (the CLI's own total: $${total.toFixed(6)})`,
    );
    expect(measured?.responses).toBe(served.requests);
    expect(Math.abs((measured?.costUsd ?? 0) - expected)).toBeLessThanOrEqual(0.01 * expected);
  });

  it('compaction is judged on the real context: under the threshold it resumes, past it a summary then a fresh session', async () => {
    const h = await claudeHarness({});
    const prompts: string[] = [];
    let context = 0;
    let summed = 0;
    const make = (threshold: number) =>
      createClaudeCodeConversation({
        run: async ({ prompt, session, previousCostUsd }) => {
          prompts.push(prompt);
          const r = await call(h, prompt, { session, previousCostUsd });
          context = r.contextTokens;
          summed = r.usage.input + r.usage.cacheWrite + r.usage.cacheRead + r.usage.output;
          return r;
        },
        threshold,
        contextWindow: 200_000,
        log: createMemoryLog(),
      });
    const first = await make(0.8).send('task one');
    expect(first.compacted).toBeUndefined();
    const window = first.result.contextWindow ?? 200_000;
    // Just under the context the CLI reported: compaction at the percentage the real context is at.
    const tight = make((context - 100) / window);
    prompts.length = 0;
    const turn = await tight.send('task one');
    expect(turn.compacted?.percent).toBe(Math.round((100 * context) / window));
    await tight.send('task two');
    expect(prompts.slice(0, 3)).toEqual([
      'task one',
      COMPACTION_REQUEST,
      expect.stringMatching(/^CONTEXT FROM PREVIOUS SESSION:\n[\s\S]+\n\nNEXT TASK: task two$/),
    ]);
    console.log(
      `contract figures: context at compaction ${turn.compacted?.percent}% of ${window}, real context ${context} tokens, the call's usage summed ${summed} tokens`,
    );
  });

  it('the seeded fallback reads a real session file, compacted with /compact: its summary, no CLI noise', async () => {
    const h = await claudeHarness({});
    const id = ID(2);
    expect((await call(h, 'first task: add a greet function', { session: { id, resume: false } })).ok).toBe(
      true,
    );
    expect((await call(h, '/compact', { session: { id, resume: true } })).ok).toBe(true);
    expect((await call(h, 'third task: rename greet', { session: { id, resume: true } })).ok).toBe(true);
    const text = await sessionFileText(h.claudeHome, id);
    await record('session-compacted.jsonl', text);
    const seed = await readSessionSeed({ claudeHome: h.claudeHome, cwd: h.worktree, sessionId: id });
    expect(seed?.summary).toMatch(/continued from a previous conversation/);
    expect(seed?.summary).not.toBe('Conversation compacted');
    const turns = seed?.turns.map((t) => t.text).join('\n') ?? '';
    expect(turns).toContain('third task: rename greet');
    expect(turns).not.toContain('first task');
    expect(turns).not.toMatch(/local-command|command-name/);
  });

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

  it.each(['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN'] as const)(
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

  it('finds the session file of a project whose path is longer than 200 characters', async () => {
    const deep = Array.from({ length: 12 }, (_, i) => `a-rather-long-directory-name-${i}`).join('/');
    const h = await claudeHarness({ project: deep });
    expect(claudeProjectName(h.worktree).length).toBeGreaterThan(200);
    const result = await call(h, 'hello', { session: { id: ID(4), resume: false } });
    expect(result.ok).toBe(true);
    const path = await sessionFilePath(h.claudeHome, h.worktree, ID(4));
    expect(path).toBeDefined();
    expect(path).not.toContain(claudeProjectName(h.worktree));
    // The name the claude sandbox shows (the only project directory it shows) is the CLI's.
    expect(path).toBe(join(h.claudeHome, 'projects', claudeProjectDir(h.worktree), `${ID(4)}.jsonl`));
  });

  it('a call killed at its timeout still names its session (given up front), and its file seeds the fallback', async () => {
    const h = await claudeHarness({ script: () => ({ hang: true }) });
    const result = await call(h, 'the task that hangs', {
      session: { id: ID(5), resume: false },
      timeoutMs: 8_000,
    });
    expect(result).toMatchObject({ ok: false, sessionId: ID(5), error: { errorClass: 'timeout' } });
    const seed = await readSessionSeed({ claudeHome: h.claudeHome, cwd: h.worktree, sessionId: ID(5) });
    expect(seed?.turns.map((t) => t.text).join('\n')).toContain('the task that hangs');
  });

  it('--max-turns and --max-budget-usd stop the CLI; the stop is the limit, not a failure of the model', async () => {
    const h = await claudeHarness({
      script: () => reply.toolUse([{ name: 'Bash', input: { command: 'true', description: 'nothing' } }]),
    });
    const turns = await call(h, 'loop', { session: { id: ID(6), resume: false }, maxTurns: 1 });
    await record('result-max-turns.json', turns.lines.at(-1) ?? '');
    expect(turns).toMatchObject({ ok: false, limit: 'model_calls' });
    // The budget is what this process spends, not the session's running total: a resumed call under
    // it finishes though the session is past it; one over it stops after its first response.
    const h2 = await claudeHarness({});
    const first = await call(h2, 'one', { session: { id: ID(7), resume: false } });
    const under = await call(h2, 'two', {
      session: { id: ID(7), resume: true },
      previousCostUsd: first.sessionCostUsd,
      maxBudgetUsd: first.sessionCostUsd / 2,
    });
    expect(under.ok).toBe(true);
    expect(under.costUsd).toBeLessThan(first.sessionCostUsd / 2);
    const over = await call(h2, 'three', {
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
        const started = Date.now();
        const result = await call(h, 'loop', { env: { ...h.env, ...access.env(UNSANDBOXED) } });
        expect(Date.now() - started).toBeLessThan(30_000);
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
