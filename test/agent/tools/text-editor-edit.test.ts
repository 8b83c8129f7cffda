import { describe, expect, it } from 'vitest';
import { editorFixture, numbered } from './editor-fixture.js';
import { useTempDirs } from './temp-dirs.js';

const tempDir = useTempDirs('editor-edit');
const setup = () => editorFixture(tempDir);

describe('text editor: create', () => {
  it('creates a file and its parent directories, recorded as created', async () => {
    const { run, read, tracker } = await setup();
    const result = await run({ command: 'create', path: 'src/new/dir/file.ts', file_text: 'export {};\n' });
    expect(result).toEqual({ isError: false, content: 'File created successfully at: src/new/dir/file.ts' });
    expect(await read('src/new/dir/file.ts')).toBe('export {};\n');
    expect(tracker.snapshot()).toEqual({ read: [], created: ['src/new/dir/file.ts'], modified: [] });
  });

  it('overwrites an existing file, recorded as modified', async () => {
    const { run, read, write, tracker } = await setup();
    await write('a.txt', 'old');
    expect(await run({ command: 'create', path: 'a.txt', file_text: 'new' })).toEqual({
      isError: false,
      content: 'File overwritten: a.txt',
    });
    expect(await read('a.txt')).toBe('new');
    expect(tracker.snapshot().modified).toEqual(['a.txt']);
  });

  it('keeps a created then edited file in created only', async () => {
    const { run, tracker } = await setup();
    await run({ command: 'create', path: 'a.txt', file_text: 'one\n' });
    await run({ command: 'str_replace', path: 'a.txt', old_str: 'one', new_str: 'two' });
    await run({ command: 'insert', path: 'a.txt', insert_line: 0, insert_text: 'zero' });
    expect(tracker.snapshot()).toEqual({ read: [], created: ['a.txt'], modified: [] });
  });

  it('refuses to create over a directory, and under a file', async () => {
    const { run, write } = await setup();
    await write('src/a.ts', '');
    expect(await run({ command: 'create', path: 'src', file_text: 'x' })).toEqual({
      isError: true,
      content: 'src is a directory, not a file.',
    });
    const under = await run({ command: 'create', path: 'src/a.ts/b.ts', file_text: 'x' });
    expect(under.isError).toBe(true);
    expect(under.content).toContain('src/a.ts/b.ts');
  });
});

describe('text editor: str_replace', () => {
  it('replaces a unique match and shows a numbered snippet around it', async () => {
    const { run, read, write, tracker } = await setup();
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    await write('a.txt', `${lines.join('\n')}\n`);
    const result = await run({
      command: 'str_replace',
      path: 'a.txt',
      old_str: 'line 10\n',
      new_str: 'ten\nTEN\n',
    });
    expect(result.isError).toBe(false);
    expect(result.content).toBe(
      `Edited a.txt. Snippet of the result:\n${numbered(['line 6', 'line 7', 'line 8', 'line 9', 'ten', 'TEN', 'line 11', 'line 12', 'line 13', 'line 14'], 6)}`,
    );
    expect(await read('a.txt')).toBe(
      `${[...lines.slice(0, 9), 'ten', 'TEN', ...lines.slice(10)].join('\n')}\n`,
    );
    expect(tracker.snapshot()).toEqual({ read: [], created: [], modified: ['a.txt'] });
  });

  it('deletes old_str when new_str is omitted', async () => {
    const { run, read, write } = await setup();
    await write('a.txt', 'keep DROP keep');
    expect((await run({ command: 'str_replace', path: 'a.txt', old_str: ' DROP' })).isError).toBe(false);
    expect(await read('a.txt')).toBe('keep keep');
  });

  it('writes new_str literally, even with $ patterns', async () => {
    const { run, read, write } = await setup();
    await write('a.txt', 'price');
    await run({ command: 'str_replace', path: 'a.txt', old_str: 'price', new_str: "$& $' $$1" });
    expect(await read('a.txt')).toBe("$& $' $$1");
  });

  it('reports old_str not found', async () => {
    const { run, read, write, tracker } = await setup();
    await write('src/a.ts', 'const a = 1;\n');
    expect(await run({ command: 'str_replace', path: 'src/a.ts', old_str: 'const b', new_str: 'x' })).toEqual(
      {
        isError: true,
        content: 'No replacement was performed, old_str did not appear verbatim in src/a.ts.',
      },
    );
    expect(await read('src/a.ts')).toBe('const a = 1;\n');
    expect(tracker.snapshot().modified).toEqual([]);
  });

  it('reports multiple occurrences with their lines', async () => {
    const { run, read, write } = await setup();
    const lines = ['a', 'b', 'target', 'c', 'd', 'e', 'f', 'g', 'x target', 'h'];
    await write('a.txt', lines.join('\n'));
    expect(await run({ command: 'str_replace', path: 'a.txt', old_str: 'target', new_str: 'y' })).toEqual({
      isError: true,
      content:
        'No replacement was performed. Multiple occurrences of old_str in lines 3, 9. Please ensure it is unique',
    });
    expect(await read('a.txt')).toBe(lines.join('\n'));
  });

  it('counts overlapping occurrences as ambiguous', async () => {
    const { run, write } = await setup();
    await write('a.txt', 'aaa');
    expect(
      (await run({ command: 'str_replace', path: 'a.txt', old_str: 'aa', new_str: 'b' })).content,
    ).toContain('Multiple occurrences of old_str in lines 1.');
  });

  it('refuses an empty old_str and a missing file', async () => {
    const { run, write } = await setup();
    await write('a.txt', 'x');
    const empty = await run({ command: 'str_replace', path: 'a.txt', old_str: '', new_str: 'y' });
    expect(empty.isError).toBe(true);
    expect(empty.content).toContain('old_str is empty');
    expect(await run({ command: 'str_replace', path: 'missing.txt', old_str: 'a', new_str: 'b' })).toEqual({
      isError: true,
      content: 'The path missing.txt does not exist.',
    });
  });
});

describe('text editor: insert', () => {
  it('inserts at the top, in the middle and at the end, keeping the final newline', async () => {
    const { run, read, write, tracker } = await setup();
    await write('a.txt', 'one\ntwo\n');
    const top = await run({ command: 'insert', path: 'a.txt', insert_line: 0, insert_text: 'zero' });
    expect(top).toEqual({
      isError: false,
      content: `Inserted 1 line(s) into a.txt after line 0:\n${numbered(['zero', 'one', 'two'])}`,
    });
    await run({ command: 'insert', path: 'a.txt', insert_line: 2, insert_text: 'one and a half\n' });
    await run({ command: 'insert', path: 'a.txt', insert_line: 4, insert_text: 'three\nfour' });
    expect(await read('a.txt')).toBe('zero\none\none and a half\ntwo\nthree\nfour\n');
    expect(tracker.snapshot().modified).toEqual(['a.txt']);
  });

  it('accepts the legacy new_str field', async () => {
    const { run, read, write } = await setup();
    await write('a.txt', 'a\nc');
    expect((await run({ command: 'insert', path: 'a.txt', insert_line: 1, new_str: 'b' })).isError).toBe(
      false,
    );
    expect(await read('a.txt')).toBe('a\nb\nc');
  });

  it('inserts into an empty file', async () => {
    const { run, read, write } = await setup();
    await write('empty.txt', '');
    await run({ command: 'insert', path: 'empty.txt', insert_line: 0, insert_text: 'first\n' });
    expect(await read('empty.txt')).toBe('first\n');
  });

  it('range-checks insert_line', async () => {
    const { run, read, write } = await setup();
    await write('a.txt', 'one\ntwo\n');
    for (const line of [3, -1]) {
      expect(await run({ command: 'insert', path: 'a.txt', insert_line: line, insert_text: 'x' })).toEqual({
        isError: true,
        content: `Invalid insert_line ${line}: it must be within [0, 2] (0 inserts at the top; a.txt has 2 lines).`,
      });
    }
    expect(await read('a.txt')).toBe('one\ntwo\n');
  });

  it('needs insert_text', async () => {
    const { run, write } = await setup();
    await write('a.txt', 'one\n');
    expect(await run({ command: 'insert', path: 'a.txt', insert_line: 0 })).toEqual({
      isError: true,
      content: 'insert needs insert_text: the text to insert.',
    });
  });
});
