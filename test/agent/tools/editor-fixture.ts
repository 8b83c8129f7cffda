import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFileTracker } from '../../../src/agent/tools/file-tracker.js';
import { createTextEditorTool } from '../../../src/agent/tools/text-editor.js';

const signal = new AbortController().signal;

/** A text editor on a fresh temp worktree from `tempDir`, with helpers to run it and touch files. */
export async function editorFixture(tempDir: () => Promise<string>, maxViewChars?: number) {
  const root = await tempDir();
  const tracker = createFileTracker();
  const tool = createTextEditorTool({
    root,
    tracker,
    ...(maxViewChars === undefined ? {} : { maxViewChars }),
  });
  const run = (input: unknown) => tool.run(input, signal);
  const read = (path: string) => readFile(join(root, path), 'utf8');
  const write = async (path: string, text: string | Uint8Array) => {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  };
  return { root, tracker, tool, run, read, write };
}

/** What the editor shows for `lines` starting at line `first`, `cat -n` style. */
export const numbered = (lines: string[], first = 1) =>
  lines.map((line, i) => `${String(first + i).padStart(6)}\t${line}`).join('\n');
