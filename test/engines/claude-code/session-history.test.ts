import { link, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeConfigDir } from '../../../src/engines/claude-code/claude-scope.js';
import {
  claudeProjectDir,
  claudeProjectName,
  formatPrelude,
  PRELUDE_MAX_CHARS,
  readSessionSeed,
  SUMMARY_MAX_CHARS,
  seedFromSessionLines,
  sessionFilePath,
} from '../../../src/engines/claude-code/session-history.js';
import {
  fallbackRetryPrompt,
  retryMarker,
  seededFallbackPrompt,
} from '../../../src/engines/fallback/fallback-seed.js';
import { CLAUDE_CODE_VERSION } from '../../helpers/claude-code-version.js';

/** Claude Code session-file lines, as its JSONL writes them. */
const user = (text: string) => ({ type: 'user', message: { role: 'user', content: text } });
const assistant = (content: unknown) => ({ type: 'assistant', message: { role: 'assistant', content } });
const summary = (text: string) => ({ type: 'summary', summary: text, leafUuid: 'u1' });
const boundary = (content?: string) => ({
  type: 'system',
  subtype: 'compact_boundary',
  ...(content ? { content } : {}),
  compactMetadata: { trigger: 'auto', preTokens: 150_000 },
});
const jsonl = (...entries: unknown[]) => `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`;

const FIXTURES = fileURLToPath(
  new URL(`../../fixtures/claude-code/${CLAUDE_CODE_VERSION}/`, import.meta.url),
);

describe('seedFromSessionLines on the 2.1.x session file', () => {
  it('regression: a file the real CLI compacted with /compact: the isCompactSummary message is the summary, not "Conversation compacted"; no meta or command echoes', async () => {
    const seed = seedFromSessionLines(await readFile(join(FIXTURES, 'session-compacted.jsonl'), 'utf8'));
    expect(seed.summary).toMatch(/^This session is being continued from a previous conversation/);
    expect(seed.turns.map((t) => t.text)).toEqual(['third task: rename greet', '(nothing to echo)']);
  });

  it("regression: the CLI's own error messages (isApiErrorMessage, model <synthetic>) are not turns", () => {
    const seed = seedFromSessionLines(
      jsonl(
        user('fix it'),
        {
          type: 'assistant',
          isApiErrorMessage: true,
          message: {
            role: 'assistant',
            model: '<synthetic>',
            content: [{ type: 'text', text: 'API Error: 429' }],
          },
        },
        {
          type: 'assistant',
          message: {
            role: 'assistant',
            model: '<synthetic>',
            content: [{ type: 'text', text: 'No response requested.' }],
          },
        },
        {
          type: 'user',
          isMeta: true,
          message: { role: 'user', content: '<local-command-caveat>Caveat</local-command-caveat>' },
        },
      ),
    );
    expect(seed.turns).toEqual([{ role: 'user', text: 'fix it' }]);
  });

  it("regression: turns a compaction preserved (compactMetadata.preservedSegment) are kept, after the summary's", () => {
    const at = (uuid: string, parentUuid: string | null, entry: Record<string, unknown>) => ({
      ...entry,
      uuid,
      parentUuid,
    });
    const seed = seedFromSessionLines(
      jsonl(
        at('u1', null, user('old task')),
        at('u2', 'u1', assistant([{ type: 'text', text: 'old answer' }])),
        at('u3', 'u2', user('recent task')),
        at('u4', 'u3', assistant([{ type: 'text', text: 'recent answer' }])),
        at('b1', 'u4', {
          type: 'system',
          subtype: 'compact_boundary',
          content: 'Conversation compacted',
          compactMetadata: {
            trigger: 'auto',
            preservedSegment: { headUuid: 'u3', tailUuid: 'u4', anchorUuid: 'b1' },
          },
        }),
        at('s1', 'b1', { ...user('Summary: did the old task.'), isCompactSummary: true }),
        at('u5', 's1', user('newest task')),
      ),
    );
    expect(seed).toEqual({
      summary: 'Summary: did the old task.',
      turns: [
        { role: 'user', text: 'recent task' },
        { role: 'assistant', text: 'recent answer' },
        { role: 'user', text: 'newest task' },
      ],
    });
  });
});

describe('seedFromSessionLines', () => {
  it('several compactions: the latest summary, only the turns after the latest boundary', () => {
    const seed = seedFromSessionLines(
      jsonl(
        user('first task'),
        summary('S1: set up the project'),
        boundary(),
        user('second'),
        summary('S2: added the parser'),
        boundary('boundary 2 content'),
        user('fix the tests'),
        assistant([{ type: 'text', text: 'Running them now.' }]),
      ),
    );
    expect(seed).toEqual({
      summary: 'S2: added the parser',
      turns: [
        { role: 'user', text: 'fix the tests' },
        { role: 'assistant', text: 'Running them now.' },
      ],
    });
  });

  it('a boundary without its own summary uses the boundary content, never an older summary', () => {
    const seed = seedFromSessionLines(
      jsonl(summary('S1: old'), boundary(), user('a'), boundary('the crash-time compaction'), user('b')),
    );
    expect(seed).toEqual({ summary: 'the crash-time compaction', turns: [{ role: 'user', text: 'b' }] });
    // ...and none at all when the boundary has no content either.
    expect(seedFromSessionLines(jsonl(summary('S1'), boundary(), user('a'), boundary(), user('b')))).toEqual({
      turns: [{ role: 'user', text: 'b' }],
    });
  });

  it('a trailing summary without a boundary: used when the file has no boundary, ignored after one', () => {
    expect(seedFromSessionLines(jsonl(user('a'), assistant('b'), summary('S: titled session')))).toEqual({
      summary: 'S: titled session',
      turns: [
        { role: 'user', text: 'a' },
        { role: 'assistant', text: 'b' },
      ],
    });
    expect(
      seedFromSessionLines(jsonl(summary('S1'), boundary(), user('after'), summary('S2 unpaired'))),
    ).toEqual({ summary: 'S1', turns: [{ role: 'user', text: 'after' }] });
  });

  it('shortens tool blocks and skips torn or unknown lines', () => {
    const seed = seedFromSessionLines(
      `${jsonl(
        assistant([
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } },
        ]),
        {
          type: 'user',
          message: {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't1',
                content: [{ type: 'text', text: `FAIL ${'x'.repeat(400)}` }],
              },
            ],
          },
        },
        { type: 'file-history-snapshot', snapshot: {} },
      )}{"type":"user","mess`,
    );
    expect(seed.turns[0]).toEqual({ role: 'assistant', text: 'Let me look.\n(tool call: Bash)' });
    expect(seed.turns[1]?.text).toMatch(/^\(tool result: FAIL x+…\)$/);
    expect(seed.turns[1]?.text.length).toBe('(tool result: '.length + 200 + 1);
    expect(seed.turns).toHaveLength(2);
  });
});

describe('formatPrelude', () => {
  it('is the labelled summary then the recent turns, oldest first', () => {
    expect(
      formatPrelude({
        summary: 'Added src/parse.ts; tests pending.',
        turns: [
          { role: 'user', text: 'run the tests' },
          { role: 'assistant', text: '(tool call: Bash)' },
        ],
      }),
    ).toBe(
      [
        'Prior session context (from claude-code):',
        'Summary of the earlier session:',
        'Added src/parse.ts; tests pending.',
        '',
        'Most recent turns:',
        'user: run the tests',
        'assistant: (tool call: Bash)',
      ].join('\n'),
    );
    expect(formatPrelude({ turns: [] })).toBeUndefined();
  });

  it('an oversized turn ends the window: contiguous newest turns only, within the budget', () => {
    const turns = [
      { role: 'user' as const, text: 'oldest, small' },
      { role: 'assistant' as const, text: 'y'.repeat(PRELUDE_MAX_CHARS) },
      { role: 'user' as const, text: 'newer' },
      { role: 'assistant' as const, text: 'newest' },
    ];
    const prelude = formatPrelude({ turns }) as string;
    expect(prelude).toBe(
      'Prior session context (from claude-code):\nMost recent turns:\nuser: newer\nassistant: newest',
    );
    expect(prelude).not.toContain('oldest, small');
  });

  it('an overflowing summary is cut and marked (truncated); the body stays within 8,000 characters', () => {
    const prelude = formatPrelude({
      summary: 's'.repeat(SUMMARY_MAX_CHARS * 2),
      turns: Array.from({ length: 50 }, (_, i) => ({
        role: 'user' as const,
        text: `turn ${i} ${'t'.repeat(300)}`,
      })),
    }) as string;
    expect(prelude).toContain(`${'s'.repeat(SUMMARY_MAX_CHARS - ' (truncated)'.length)} (truncated)`);
    expect(prelude).toContain('turn 49');
    const body = prelude.split('\n').filter((l) => l.startsWith('s') || l.startsWith('user: '));
    expect(body.join('').length).toBeLessThanOrEqual(PRELUDE_MAX_CHARS);
  });
});

describe('the session file and the seeded fallback prompt', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  async function claudeHome(cwd: string, sessionId: string, lines: string) {
    const home = await mkdtemp(join(tmpdir(), 'issueloop-claude-home-'));
    dirs.push(home);
    const project = join(home, 'projects', claudeProjectName(cwd));
    await mkdir(project, { recursive: true });
    if (lines) await writeFile(join(project, `${sessionId}.jsonl`), lines);
    return { home, project };
  }

  const SESSION = '3f1c2e6a-1b2c-4d5e-8f90-123456789abc';
  const CWD = '/work/repo/.issueloop/worktrees/task-1';
  const TASK = '- Add the /health endpoint\n  returning {"ok": true}';

  it('seeds the native fallback from the failed Claude Code session: prelude, marker, task unchanged', async () => {
    const { home } = await claudeHome(
      CWD,
      SESSION,
      jsonl(
        summary('Created src/health.ts; route not wired yet.'),
        boundary(),
        user('wire the route'),
        assistant('On it.'),
      ),
    );
    const prompt = await seededFallbackPrompt({
      chainStartedOn: 'claude-code',
      failedEngine: 'claude-code',
      next: 'native',
      failureClass: 'billing',
      task: TASK,
      sessionId: SESSION,
      cwd: CWD,
      claudeHome: home,
    });
    expect(prompt).toBe(
      [
        'Prior session context (from claude-code):',
        'Summary of the earlier session:',
        'Created src/health.ts; route not wired yet.',
        '',
        'Most recent turns:',
        'user: wire the route',
        'assistant: On it.',
        '',
        retryMarker('claude-code', 'billing'),
        '',
        TASK,
      ].join('\n'),
    );
    expect(prompt.endsWith(`\n\n${TASK}`)).toBe(true);
  });

  it('the gate: a chain that started on the native engine never reads Claude Code history', async () => {
    const { home } = await claudeHome(CWD, SESSION, jsonl(summary('stale, from another run'), boundary()));
    for (const chainStartedOn of ['native'] as const) {
      const prompt = await seededFallbackPrompt({
        chainStartedOn,
        failedEngine: 'claude-code',
        next: 'native',
        failureClass: 'rate_limit',
        task: TASK,
        sessionId: SESSION,
        cwd: CWD,
        claudeHome: home,
        sleep: async () => {
          throw new Error('the history must not even be waited for');
        },
      });
      expect(prompt).toBe(
        fallbackRetryPrompt({ task: TASK, failedEngine: 'claude-code', failureClass: 'rate_limit' }),
      );
      expect(prompt).not.toContain('stale');
    }
  });

  it('tolerates a late flush: the file is read once more after a short wait', async () => {
    const { home, project } = await claudeHome(CWD, SESSION, '');
    let waited = 0;
    const seed = await readSessionSeed({
      claudeHome: home,
      cwd: CWD,
      sessionId: SESSION,
      flushDelayMs: 50,
      sleep: async (ms) => {
        waited = ms;
        await writeFile(join(project, `${SESSION}.jsonl`), jsonl(user('flushed late')));
      },
    });
    expect(waited).toBe(50);
    expect(seed?.turns).toEqual([{ role: 'user', text: 'flushed late' }]);
  });

  it('refuses session ids and links that would leave ~/.claude/projects', async () => {
    const { home, project } = await claudeHome(CWD, SESSION, jsonl(user('x')));
    expect(await sessionFilePath(home, CWD, SESSION)).toBe(join(project, `${SESSION}.jsonl`));
    expect(await sessionFilePath(home, CWD, '../../../etc/passwd')).toBeUndefined();
    const outside = await mkdtemp(join(tmpdir(), 'issueloop-outside-'));
    dirs.push(outside);
    await writeFile(join(outside, 'secret.jsonl'), jsonl(user('secret')));
    await symlink(join(outside, 'secret.jsonl'), join(project, 'linked.jsonl'));
    expect(await sessionFilePath(home, CWD, 'linked')).toBeUndefined();
  });

  it("names a long project's directory as the pinned CLI does: its first 200 characters, then the path's hash", () => {
    const long = `/${Array.from({ length: 12 }, (_, i) => `a-rather-long-directory-name-${i}`).join('/')}`;
    expect(claudeProjectDir(CWD)).toBe(claudeProjectName(CWD));
    expect(claudeProjectDir(long)).toBe(`${claudeProjectName(long).slice(0, 200)}-oiojna`);
  });

  it("regression: finds a session in the worktree's project directory only, never in another project's", async () => {
    const { home, project } = await claudeHome(CWD, SESSION, '');
    const elsewhere = join(home, 'projects', '-home-dev-payroll-service');
    await mkdir(elsewhere, { recursive: true });
    await writeFile(join(elsewhere, `${SESSION}.jsonl`), jsonl(user('another project')));
    expect(await sessionFilePath(home, CWD, SESSION)).toBeUndefined();
    // Nor through a link the agent planted in its own directory: the seed would show it the other project.
    await symlink(join(elsewhere, `${SESSION}.jsonl`), join(project, 'planted.jsonl'));
    expect(await sessionFilePath(home, CWD, 'planted')).toBeUndefined();
  });

  it('regression: session files live under CLAUDE_CONFIG_DIR when it is set', () => {
    expect(claudeConfigDir({ HOME: '/home/dev', CLAUDE_CONFIG_DIR: '/srv/claude' })).toBe('/srv/claude');
    expect(claudeConfigDir({ HOME: '/home/dev' })).toBe('/home/dev/.claude');
  });

  it('regression: refuses a session file that is a hard link (its other name may be the login)', async () => {
    const { home, project } = await claudeHome(CWD, SESSION, jsonl(user('x')));
    await writeFile(join(home, '.credentials.json'), jsonl(user('the claude login')));
    await link(join(home, '.credentials.json'), join(project, 'hard.jsonl'));
    expect(await sessionFilePath(home, CWD, 'hard')).toBeUndefined();
    expect(await sessionFilePath(home, CWD, SESSION)).toBe(join(project, `${SESSION}.jsonl`));
  });
});
