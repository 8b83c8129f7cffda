import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { CLAUDE_CODE_VERSION } from '../../helpers/claude-code-version.js';

/** A stand-in `claude` executable (./fake-claude/claude) driven by a scenario, for the engine's tests. */
export const FAKE_CLAUDE = fileURLToPath(new URL('./fake-claude/claude', import.meta.url));
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const FIXTURES = fileURLToPath(
  new URL(`../../fixtures/claude-code/${CLAUDE_CODE_VERSION}/`, import.meta.url),
);

/** A result object the real CLI printed (the contract suite records them). */
export function recordedResult(name: string): Record<string, unknown> {
  const lines = readFileSync(join(FIXTURES, name), 'utf8').trim().split('\n');
  return JSON.parse(lines.at(-1) as string) as Record<string, unknown>;
}

/**
 * Claude Code's result object as 2.1.x prints it (recorded: a tool call and the answer), with the
 * fields a test sets. Its session id is the one the fake was given unless a test names one.
 */
export function resultJson(overrides: Record<string, unknown> = {}) {
  const { session_id: _recordedId, ...recorded } = recordedResult('stream-tool-call.jsonl');
  return {
    ...recorded,
    result: 'Fixed the typo in greet.js.',
    total_cost_usd: 0.0421,
    usage: {
      input_tokens: 1200,
      cache_creation_input_tokens: 3000,
      cache_read_input_tokens: 9000,
      output_tokens: 800,
    },
    modelUsage: {
      'claude-sonnet-5-5-20260101': { inputTokens: 1200, outputTokens: 800, contextWindow: 200_000 },
    },
    // Without it the call's cost is its total less the session's earlier total, as before 2.1.x.
    model_usage_since_last_result: undefined,
    ...overrides,
  };
}

/**
 * A fake `claude` with its home. Its scenario comes in its environment; it keeps its call log and
 * step counter in its project directory (~/.claude/projects/<its cwd, named as the CLI names it>),
 * the one place of its home that the claude sandbox shows as it is, so they persist wherever it ran.
 */
export async function fakeClaude(scenario: unknown[]) {
  const dir = await mkdtemp(join(tmpdir(), 'issueloop-fake-claude-'));
  dirs.push(dir);
  // The recorded lines the scenario names, and the init line every stream starts with.
  const names = new Set(['stream-tool-call.jsonl']);
  for (const step of scenario as { fixture?: string; session?: { fixture?: string } }[]) {
    if (step.fixture) names.add(step.fixture);
    if (step.session?.fixture) names.add(step.session.fixture);
  }
  const fixtures = Object.fromEntries(
    [...names].map((name) => [name, readFileSync(join(FIXTURES, name), 'utf8').split('\n').filter(Boolean)]),
  );
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    FAKE_CLAUDE_SCENARIO: JSON.stringify({ steps: scenario, fixtures }),
  };
  const projects = join(dir, '.claude', 'projects');
  const calls = async () => {
    const logs = await Promise.all(
      (await readdir(projects).catch(() => [] as string[])).map((project) =>
        readFile(join(projects, project, FAKE_CLAUDE_LOG), 'utf8').catch(() => ''),
      ),
    );
    return logs
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { args: string[]; prompt: string; cwd: string; env: string[] });
  };
  return { dir, env, calls };
}

/** The fake's call log, in its project directory. */
const FAKE_CLAUDE_LOG = 'fake-claude-calls.jsonl';
