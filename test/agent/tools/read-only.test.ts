import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readingOnly } from '../../../src/agent/tools/read-only.js';
import { createToolset } from '../../../src/agent/tools/toolset.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a read-only toolset (a plan session)', () => {
  it('has the editor alone: view works, every change is refused and the file stays', async () => {
    dir = await mkdtemp(join(tmpdir(), 'issueloop-readonly-'));
    await writeFile(join(dir, 'a.txt'), 'one\n');
    const tools = createToolset({ root: dir, env: {}, readOnly: true });
    expect(tools.tools.map((t) => t.name)).toEqual(['str_replace_based_edit_tool']);
    const signal = new AbortController().signal;
    const view = await tools.run('str_replace_based_edit_tool', { command: 'view', path: 'a.txt' }, signal);
    expect(view.isError).toBe(false);
    expect(view.content).toContain('one');
    const edit = await tools.run(
      'str_replace_based_edit_tool',
      { command: 'str_replace', path: 'a.txt', old_str: 'one', new_str: 'two' },
      signal,
    );
    expect(edit).toMatchObject({ isError: true, content: expect.stringContaining('only reads') });
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('one\n');
    expect((await tools.run('bash', { command: 'ls' }, signal)).isError).toBe(true);
  });

  it('readingOnly passes view through to the editor and nothing else', async () => {
    const seen: unknown[] = [];
    const editor = readingOnly({
      name: 'str_replace_based_edit_tool',
      definition: { name: 'str_replace_based_edit_tool' } as never,
      run: async (input) => {
        seen.push(input);
        return { isError: false, content: 'viewed' };
      },
    });
    const signal = new AbortController().signal;
    expect(await editor.run({ command: 'view', path: 'a' }, signal)).toEqual({
      isError: false,
      content: 'viewed',
    });
    expect((await editor.run({ command: 'create', path: 'b', file_text: 'x' }, signal)).isError).toBe(true);
    expect((await editor.run(null, signal)).isError).toBe(true);
    expect(seen).toEqual([{ command: 'view', path: 'a' }]);
  });
});
