import type { FileHandle } from 'node:fs/promises';
import { ToolInputError } from './tool-input-error.js';

/** Bigger files are generated or data: the editor refuses them and the model can use bash to peek. */
export const MAX_TEXT_FILE_BYTES = 2 * 1024 * 1024;

// fatal: an edit must never rewrite bytes it could not decode; ignoreBOM: keep a BOM on write-back.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads a file the editor may show or edit, through a handle openConfined gave (so it is the file
 * inside the worktree): a regular file, at most 2 MB, valid UTF-8 without NULs.
 */
export async function readTextFile(handle: FileHandle, shown: string): Promise<string> {
  const info = await handle.stat();
  if (info.isDirectory()) throw new ToolInputError(`${shown} is a directory, not a file.`);
  // Reading a FIFO or a device would block or never end.
  if (!info.isFile()) throw new ToolInputError(`${shown} is not a regular file.`);
  if (info.size > MAX_TEXT_FILE_BYTES) {
    throw new ToolInputError(
      `${shown} is ${info.size} bytes, over the 2 MB the editor handles: inspect it with bash (head, sed -n, grep).`,
    );
  }
  const bytes = await handle.readFile();
  const binary = () =>
    new ToolInputError(`${shown} looks like a binary file; the editor only handles UTF-8 text.`);
  if (bytes.subarray(0, 8192).includes(0)) throw binary();
  try {
    return decoder.decode(bytes);
  } catch {
    throw binary();
  }
}

export interface Lines {
  lines: string[];
  /** Whether the text ended with a newline, which is not counted as an extra empty line. */
  trailingNewline: boolean;
}

export function splitLines(text: string): Lines {
  if (text === '') return { lines: [], trailingNewline: false };
  const trailingNewline = text.endsWith('\n');
  return { lines: (trailingNewline ? text.slice(0, -1) : text).split('\n'), trailingNewline };
}

export function joinLines({ lines, trailingNewline }: Lines): string {
  return lines.join('\n') + (trailingNewline && lines.length > 0 ? '\n' : '');
}

/** `cat -n` style, as in Anthropic's reference editor: the number right-aligned in 6, a tab, the line. */
export function numberLines(lines: readonly string[], firstLineNumber: number): string {
  return lines.map((line, i) => `${String(firstLineNumber + i).padStart(6)}\t${line}`).join('\n');
}

/** 1-based line of each position in `text`. */
export function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
