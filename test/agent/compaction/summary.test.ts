import { describe, expect, it } from 'vitest';
import { formatCompactionSummary } from '../../../src/agent/compaction/summary.js';
import type { ToolFailure } from '../../../src/agent/compaction/tool-failures.js';
import { NO_FILES, SUMMARY } from './builders.js';

const headings = (summary: string) => summary.split('\n').filter((line) => line.startsWith('## '));

const ORDER = [
  '## Files read',
  '## Files modified',
  '## Tool failures',
  '## Decisions',
  '## Current state',
  '## Open task',
];

const failure = (i: number): ToolFailure => ({
  toolUseId: `f${i}`,
  tool: 'bash',
  input: `make ${i}`,
  error: `exit ${i}`,
  messageIndex: i,
});

describe('formatCompactionSummary', () => {
  it('writes the fixed sections in order, "none" for empty lists', () => {
    const summary = formatCompactionSummary({ modelSummary: SUMMARY, files: NO_FILES, failures: [] });
    expect(headings(summary)).toEqual(ORDER);
    expect(summary).toBe(
      [
        '## Files read\nnone',
        '## Files modified\nnone',
        '## Tool failures\nnone',
        '## Decisions\nUse a map.',
        '## Current state\nHalf done.',
        '## Open task\nFinish it.',
      ].join('\n\n'),
    );
  });

  it('lists files sorted, created ones marked (new) once, and failures with tool and input', () => {
    const summary = formatCompactionSummary({
      modelSummary: SUMMARY,
      files: {
        read: ['src/b.ts', 'README.md'],
        created: ['test/new.test.ts', 'src/z.ts'],
        modified: ['src/a.ts', 'src/z.ts'],
      },
      failures: [failure(1)],
    });
    expect(summary).toContain('## Files read\n- README.md\n- src/b.ts\n\n');
    expect(summary).toContain(
      '## Files modified\n- src/a.ts\n- src/z.ts (new)\n- test/new.test.ts (new)\n\n',
    );
    expect(summary).toContain('## Tool failures\n- bash `make 1`: exit 1\n\n');
  });

  it('shows at most 8 failures, the newest', () => {
    const summary = formatCompactionSummary({
      modelSummary: SUMMARY,
      files: NO_FILES,
      failures: Array.from({ length: 11 }, (_, i) => failure(i)),
    });
    const lines = summary.split('\n').filter((line) => line.startsWith('- bash'));
    expect(lines).toHaveLength(8);
    expect(lines[0]).toBe('- bash `make 3`: exit 3');
    expect(lines[7]).toBe('- bash `make 10`: exit 10');
  });

  it('marks sections the model left out as "(not stated)", in the fixed order whatever the model wrote', () => {
    const summary = formatCompactionSummary({
      modelSummary:
        '### Open task:\nWrite the test.\n\n## **Decisions**\nKeep the API.\n## Notes\nextra detail',
      files: NO_FILES,
      failures: [],
    });
    expect(headings(summary)).toEqual(ORDER);
    expect(summary).toContain(
      '## Decisions\nKeep the API.\n### Notes\nextra detail\n\n## Current state\n(not stated)',
    );
    expect(summary.endsWith('## Open task\nWrite the test.')).toBe(true);
  });

  it('keeps a summary without our headings under Current state, and ignores headings in code', () => {
    const summary = formatCompactionSummary({
      modelSummary: 'Fixed the parser.\n```md\n## Decisions\n```',
      files: NO_FILES,
      failures: [],
    });
    expect(summary).toContain('## Decisions\n(not stated)');
    expect(summary).toContain('## Current state\nFixed the parser.\n```md\n## Decisions\n```');
  });
});
