import type { PullRequestReport } from '../../src/github/pr-body.js';

/** A session's report for a PR body: a verified fix of issue 12, with whatever `extra` changes. */
export function pullReport(extra: Partial<PullRequestReport> = {}): PullRequestReport {
  return {
    issue: { number: 12, title: 'Crash on startup' },
    summary: 'Guarded the config loader against a missing file.',
    filesChanged: ['src/config/load.ts', 'test/config/load.test.ts'],
    verify: {
      command: 'npm test',
      exitCode: 0,
      passed: true,
      outputTail: 'Tests  42 passed (42)',
      durationMs: 12_345,
    },
    costUsd: 1.234,
    model: 'claude-sonnet-5',
    modelCalls: 42,
    toolCalls: 17,
    ...extra,
  };
}
