import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/** A stand-in `claude` executable (./fake-claude/claude) driven by a scenario, for the engine's tests. */
export const FAKE_CLAUDE = fileURLToPath(new URL('./fake-claude/claude', import.meta.url));
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** Claude Code's `--output-format json` result object, as the seeds show it. */
export function resultJson(overrides: Record<string, unknown> = {}) {
  return {
    type: 'result',
    subtype: 'success',
    is_error: false,
    duration_ms: 5210,
    num_turns: 4,
    result: 'Fixed the typo in greet.js.',
    session_id: '3f1c2e6a-1b2c-4d5e-8f90-123456789abc',
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
    ...overrides,
  };
}

export async function fakeClaude(scenario: unknown[]) {
  const dir = await mkdtemp(join(tmpdir(), 'issueloop-fake-claude-'));
  dirs.push(dir);
  // Under ~/.claude/projects: the one place of the home the sandbox shows `claude` as it is.
  const own = join(dir, '.claude', 'projects', 'fake-claude');
  await mkdir(own, { recursive: true });
  const scenarioFile = join(own, 'scenario.json');
  const log = join(own, 'calls.jsonl');
  await writeFile(scenarioFile, JSON.stringify(scenario));
  await writeFile(log, '');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    FAKE_CLAUDE_SCENARIO: scenarioFile,
    FAKE_CLAUDE_LOG: log,
  };
  const calls = async () =>
    (await readFile(log, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { args: string[]; prompt: string; cwd: string; env: string[] });
  return { dir, env, calls };
}
