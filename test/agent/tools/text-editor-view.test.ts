import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { editorFixture, numbered } from './editor-fixture.js';
import { useTempDirs } from './temp-dirs.js';

const tempDir = useTempDirs('editor-view');
const setup = (maxViewChars?: number) => editorFixture(tempDir, maxViewChars);

describe('text editor: definition and dispatch', () => {
  it('is Anthropic’s text_editor_20250728 client tool', async () => {
    const { tool } = await setup(1234);
    expect(tool.name).toBe('str_replace_based_edit_tool');
    expect(tool.definition).toEqual({
      type: 'text_editor_20250728',
      name: 'str_replace_based_edit_tool',
      max_characters: 1234,
    });
  });

  it('refuses undo_edit, which this editor version does not have', async () => {
    const { run } = await setup();
    const result = await run({ command: 'undo_edit', path: 'a.txt' });
    expect(result.isError).toBe(true);
    expect(result.content).toContain('undo_edit is not supported by text_editor_20250728');
  });

  it('returns unknown commands and non-object input as errors', async () => {
    const { run } = await setup();
    expect(await run({ command: 'delete', path: 'a' })).toEqual({
      isError: true,
      content:
        'str_replace_based_edit_tool: unknown command "delete"; expected one of view, create, str_replace, insert.',
    });
    expect((await run('view a.txt')).isError).toBe(true);
    expect((await run(null)).isError).toBe(true);
  });

  it('names the bad field when input does not validate', async () => {
    const { run } = await setup();
    const result = await run({ command: 'create', path: 'a.txt' });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^invalid input for str_replace_based_edit_tool: file_text: expected string/,
    );
  });

  it('returns a refused path as an error instead of throwing', async () => {
    const { run } = await setup();
    for (const input of [
      { command: 'view', path: '../outside.txt' },
      { command: 'create', path: '/etc/issueloop-test', file_text: 'x' },
    ]) {
      const result = await run(input);
      expect(result.isError).toBe(true);
      expect(result.content).toContain('paths must stay inside the worktree');
    }
    const git = await run({ command: 'create', path: '.git/config', file_text: 'x' });
    expect(git.isError).toBe(true);
    expect(git.content).toContain('inside .git');
  });

  it('rejects only when the signal is already aborted', async () => {
    const { tool } = await setup();
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(tool.run({ command: 'view', path: '.' }, controller.signal)).rejects.toThrow('stop');
  });
});

describe('text editor: view', () => {
  it('shows a file with line numbers and records the read', async () => {
    const { run, write, tracker } = await setup();
    await write('src/a.ts', 'one\ntwo\nthree\n');
    expect(await run({ command: 'view', path: 'src/a.ts' })).toEqual({
      isError: false,
      content: numbered(['one', 'two', 'three']),
    });
    expect(tracker.snapshot()).toEqual({ read: ['src/a.ts'], created: [], modified: [] });
  });

  it('shows a view_range, with -1 meaning to the end', async () => {
    const { run, write } = await setup();
    await write('a.txt', 'l1\nl2\nl3\nl4');
    expect((await run({ command: 'view', path: 'a.txt', view_range: [2, 3] })).content).toBe(
      numbered(['l2', 'l3'], 2),
    );
    expect((await run({ command: 'view', path: 'a.txt', view_range: [3, -1] })).content).toBe(
      numbered(['l3', 'l4'], 3),
    );
  });

  it('rejects a view_range outside the file', async () => {
    const { run, write, tracker } = await setup();
    await write('a.txt', 'l1\nl2\nl3\n');
    for (const [range, message] of [
      [[0, 2], 'Invalid view_range [0, 2]: its first element must be a line of the file, within [1, 3].'],
      [[4, -1], 'Invalid view_range [4, -1]: its first element must be a line of the file, within [1, 3].'],
      [[2, 1], 'Invalid view_range [2, 1]: its second element must be -1 (end of file) or within [2, 3].'],
      [[1, 4], 'Invalid view_range [1, 4]: its second element must be -1 (end of file) or within [1, 3].'],
    ] as const) {
      expect(await run({ command: 'view', path: 'a.txt', view_range: range })).toEqual({
        isError: true,
        content: message,
      });
    }
    expect(tracker.snapshot().read).toEqual([]);
  });

  it('says a file is empty', async () => {
    const { run, write } = await setup();
    await write('empty.txt', '');
    expect(await run({ command: 'view', path: 'empty.txt' })).toEqual({
      isError: false,
      content: '(empty.txt is empty)',
    });
  });

  it('truncates a long file and points at view_range', async () => {
    const { run, write } = await setup(200);
    await write('long.txt', Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n'));
    const { isError, content } = await run({ command: 'view', path: 'long.txt' });
    expect(isError).toBe(false);
    expect(content.startsWith(numbered(['line 1', 'line 2']))).toBe(true);
    expect(content).toMatch(
      /\n\[output truncated at \d+ of \d+ characters: use view_range to see the rest of its 100 lines\]$/,
    );
    expect(content).not.toContain('line 100');
    expect(content.length).toBeLessThan(300);
  });

  it('lists a directory two levels deep without hidden entries or node_modules', async () => {
    const { run, write, tracker } = await setup();
    await write('README.md', '');
    await write('src/index.ts', '');
    await write('src/deep/x/y.ts', '');
    await write('.env', 'SECRET=1');
    await write('.github/workflows/ci.yml', '');
    await write('src/.hidden', '');
    await write('node_modules/pkg/index.js', '');
    expect(await run({ command: 'view', path: '.' })).toEqual({
      isError: false,
      content: [
        'Files and directories up to 2 levels deep in ., excluding hidden items and node_modules:',
        'README.md',
        'src/',
        'src/deep/',
        'src/index.ts',
      ].join('\n'),
    });
    expect((await run({ command: 'view', path: 'src' })).content.split('\n').slice(1)).toEqual([
      'src/deep/',
      'src/deep/x/',
      'src/index.ts',
    ]);
    expect(tracker.snapshot().read).toEqual([]);
  });

  it('truncates a long listing and says so', async () => {
    const { run, write } = await setup(60);
    for (let i = 0; i < 20; i++) await write(`file-${String(i).padStart(2, '0')}.txt`, '');
    const lines = (await run({ command: 'view', path: '.' })).content.split('\n');
    // 60 characters hold five 11-character entries, each with its newline.
    expect(lines.slice(1)).toEqual([
      'file-00.txt',
      'file-01.txt',
      'file-02.txt',
      'file-03.txt',
      'file-04.txt',
      '[listing truncated at 60 characters: view a subdirectory]',
    ]);
  });

  it('does not follow a symlinked directory while listing', async () => {
    const { root, run, write } = await setup();
    const outside = await tempDir();
    await writeFile(join(outside, 'secret.txt'), 'x');
    await write('a.txt', '');
    await symlink(outside, join(root, 'out'));
    const listing = await run({ command: 'view', path: '.' });
    expect(listing.isError).toBe(false);
    expect(listing.content.split('\n').slice(1)).toContain('a.txt');
    expect(listing.content).not.toContain('secret.txt');
  });

  it('refuses view_range on a directory', async () => {
    const { run } = await setup();
    const result = await run({ command: 'view', path: '.', view_range: [1, 2] });
    expect(result).toEqual({
      isError: true,
      content: 'view_range is only allowed when path is a file, not a directory.',
    });
  });

  it('reports a missing file, a binary file and a file over 2 MB', async () => {
    const { run, write } = await setup();
    expect(await run({ command: 'view', path: 'nope.txt' })).toEqual({
      isError: true,
      content: 'The path nope.txt does not exist.',
    });
    await write('image.png', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x1a]));
    const binary = await run({ command: 'view', path: 'image.png' });
    expect(binary.isError).toBe(true);
    expect(binary.content).toContain('binary');
    await write('latin1.txt', Uint8Array.from([0x63, 0x61, 0x66, 0xe9]));
    expect((await run({ command: 'view', path: 'latin1.txt' })).content).toContain('UTF-8');
    await write('big.txt', 'x'.repeat(2 * 1024 * 1024 + 1));
    const big = await run({ command: 'view', path: 'big.txt' });
    expect(big.isError).toBe(true);
    expect(big.content).toContain('over the 2 MB');
  });
});
