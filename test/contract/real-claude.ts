import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe } from 'vitest';
import { createAnthropicEmulator, type Script } from '../../src/emulators/anthropic/index.js';
import { type ClaudeCodeRunOptions, runClaudeCode } from '../../src/engines/claude-code/claude-code-run.js';
import { openModelAccess, QUIET_CLI } from '../../src/engines/claude-code/model-access.js';
import { UNSANDBOXED } from '../../src/sandbox/sandbox.js';
import { CLAUDE_CODE_VERSION } from '../helpers/claude-code-version.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

export { CLAUDE_CODE_VERSION };

/**
 * The real `claude`: $ISSUELOOP_CLAUDE_BIN, else where .ci/run installs the pinned release
 * (`<cache>/issueloop-ci/claude-code-<version>`). Undefined, with the reason, when it is not there.
 */
export function realClaude(): { bin: string } | { missing: string } {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const bin =
    process.env.ISSUELOOP_CLAUDE_BIN ||
    join(cache, 'issueloop-ci', `claude-code-${CLAUDE_CODE_VERSION}`, 'node_modules', '.bin', 'claude');
  if (!existsSync(bin)) return { missing: `${bin} does not exist (bash .ci/run installs it)` };
  try {
    const version = execFileSync(bin, ['--version'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: tmpdir() },
      timeout: 30_000,
    });
    if (!version.startsWith(CLAUDE_CODE_VERSION)) {
      return { missing: `${bin} is ${version.trim()}, not the pinned ${CLAUDE_CODE_VERSION}` };
    }
  } catch (err) {
    return { missing: `${bin} --version failed: ${(err as Error).message}` };
  }
  return { bin };
}

/** One call of the suite's real CLI in a harness (claudeCall with the suite's `bin`). */
export type ClaudeCall = (
  h: Harness,
  prompt: string,
  extra?: Partial<ClaudeCodeRunOptions>,
) => ReturnType<typeof claudeCall>;

/**
 * The real `claude` for a contract suite with `describe`, or `describe.skip` after a printed notice
 * saying why: visible, not silent, where the package could not be installed. `call` runs that CLI.
 */
export function contractSuite(what: string): {
  real: string | undefined;
  contract: typeof describe;
  call: ClaudeCall;
} {
  const found = realClaude();
  if ('bin' in found) {
    const bin = found.bin;
    return { real: bin, contract: describe, call: (h, prompt, extra) => claudeCall(bin, h, prompt, extra) };
  }
  console.warn(`NOTICE: ${what} is skipped: ${found.missing}`);
  const skipped: ClaudeCall = () => Promise.reject(new Error(`${what} is skipped: ${found.missing}`));
  return { real: undefined, contract: describe.skip as typeof describe, call: skipped };
}

const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

export const EMULATOR_KEY = 'sk-ant-api03-contract-0123456789';

/**
 * A home for the real CLI with the project's scripted Anthropic server on loopback, reached as a
 * session reaches the API: through issueloop's model proxy, which holds the key (`credential` names
 * the variable, ANTHROPIC_API_KEY unless told) while the CLI gets a placeholder in it. Its
 * environment sends nothing but model requests, and retries a refusal `retries` times. `hostEnv` is
 * what the harness itself holds (the real key, the emulator's URL), for a session that opens its own
 * proxy; `spent()` is what went through the harness's proxy, as the API answered.
 */
export async function claudeHarness(options: {
  script?: Script;
  credential?: 'ANTHROPIC_API_KEY' | 'CLAUDE_CODE_OAUTH_TOKEN' | 'ANTHROPIC_AUTH_TOKEN' | 'none';
  retries?: number;
  /** The worktree's path under the home, to make it long. */
  project?: string;
}) {
  const home = await mkdtemp(join(tmpdir(), 'issueloop-claude-contract-'));
  dirs.push(home);
  const worktree = join(home, options.project ?? 'repo');
  await mkdir(worktree, { recursive: true });
  execFileSync('git', ['init', '--quiet', worktree]);
  const emulator = createAnthropicEmulator({
    baseUrl: 'http://127.0.0.1/',
    apiKey: EMULATOR_KEY,
    ...(options.script ? { script: options.script } : {}),
  });
  const server = await emulator.listen();
  closers.push(() => server.close());
  const credential = options.credential ?? 'ANTHROPIC_API_KEY';
  const hostEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    ANTHROPIC_BASE_URL: server.url,
    CLAUDE_CODE_MAX_RETRIES: String(options.retries ?? 0),
    ...(credential === 'none' ? {} : { [credential]: EMULATOR_KEY }),
  };
  const access = await openModelAccess({ env: hostEnv, prices: {}, tcp: true });
  if (access) closers.push(() => access.close());
  const { [credential]: _held, ...withoutKey } = hostEnv;
  const env: Record<string, string> = access
    ? { ...withoutKey, ...access.env(UNSANDBOXED) }
    : { ...hostEnv, ...QUIET_CLI };
  const messageRequests = () => emulator.requests.filter((r) => r.path.startsWith('/v1/messages'));
  const spent = () => access?.spent();
  return {
    home,
    worktree,
    env,
    hostEnv,
    emulator,
    messageRequests,
    spent,
    claudeHome: join(home, '.claude'),
  };
}

/** The session file the CLI wrote for `sessionId`, wherever under projects/ it put it. */
export async function sessionFileText(claudeHome: string, sessionId: string): Promise<string> {
  const projects = join(claudeHome, 'projects');
  for (const dir of await readdir(projects)) {
    const path = join(projects, dir, `${sessionId}.jsonl`);
    if (existsSync(path)) return readFile(path, 'utf8');
  }
  throw new Error(`no session file for ${sessionId} under ${projects}`);
}

const FIXTURES = join(root, 'test/fixtures/claude-code', CLAUDE_CODE_VERSION);

/**
 * With ISSUELOOP_RECORD_FIXTURES=1, keeps what the real CLI printed or wrote as a fixture for the
 * fake `claude`. Session files keep only the conversation's entries: the CLI's attachments and
 * request snapshots hold its own system prompt, which is not ours to store.
 */
export async function record(name: string, text: string): Promise<void> {
  if (process.env.ISSUELOOP_RECORD_FIXTURES !== '1') return;
  const keep = new Set(['user', 'assistant', 'system', 'summary', 'result']);
  const lines = name.endsWith('.jsonl')
    ? text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .filter((line) => keep.has(String((JSON.parse(line) as { type?: unknown }).type)))
    : [text.trim()];
  await mkdir(dirname(join(FIXTURES, name)), { recursive: true });
  await writeFile(join(FIXTURES, name), `${lines.join('\n')}\n`);
}

export type Harness = Awaited<ReturnType<typeof claudeHarness>>;

/** One call of the real CLI (`bin`) in the harness, as the engine makes it, with every line it printed. */
export function claudeCall(
  bin: string,
  h: Harness,
  prompt: string,
  extra: Partial<ClaudeCodeRunOptions> = {},
) {
  const lines: string[] = [];
  const result = runClaudeCode({
    bin,
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

/** A session id the tests pin. */
export const ID = (n: number) => `0000000${n}-1111-4222-8333-444444444444`;
