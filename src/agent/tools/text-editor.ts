import { type FileHandle, realpath, stat } from 'node:fs/promises';
import { z } from 'zod';
import { type ConfinedPath, resolveInside } from './confine-path.js';
import { type OpenMode, openConfined, rewrite } from './confined-open.js';
import type { FileTracker } from './file-tracker.js';
import { listDirectory } from './list-directory.js';
import { joinLines, lineOf, numberLines, readTextFile, splitLines } from './text-file.js';
import { formatInputError, ToolInputError } from './tool-input-error.js';
import type { AgentTool, ToolOutput } from './types.js';

export interface TextEditorOptions {
  /** Worktree: every path is confined to it. */
  root: string;
  tracker: FileTracker;
  /** Cap on what one `view` returns; the model pages through longer files with `view_range`. */
  maxViewChars?: number;
}

const TOOL = 'str_replace_based_edit_tool';
const COMMANDS = ['view', 'create', 'str_replace', 'insert'] as const;
/** Lines of context shown around an edit. */
const SNIPPET_LINES = 4;

const Path = z.string();
const ViewInput = z.object({
  path: Path,
  view_range: z.tuple([z.number().int(), z.number().int()]).nullish(),
});
const CreateInput = z.object({ path: Path, file_text: z.string() });
const StrReplaceInput = z.object({ path: Path, old_str: z.string(), new_str: z.string().nullish() });
// `new_str` was insert's field in older editor versions; models still send it sometimes.
const InsertInput = z.object({
  path: Path,
  insert_line: z.number().int(),
  insert_text: z.string().nullish(),
  new_str: z.string().nullish(),
});

const ok = (content: string): ToolOutput => ({ isError: false, content });
const fail = (content: string): ToolOutput => ({ isError: true, content });

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ToolInputError(formatInputError(TOOL, parsed.error));
  return parsed.data;
}

function errorCode(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/** A failure as a sentence the model can act on; `shown` is the path as the model wrote it. */
function describeFailure(err: unknown, shown: string): string {
  if (err instanceof ToolInputError) return err.message;
  switch (errorCode(err)) {
    case 'ENOENT':
      return `The path ${shown} does not exist.`;
    case 'EISDIR':
      return `${shown} is a directory, not a file.`;
    case 'ENOTDIR':
      return `A parent of ${shown} is a file, not a directory.`;
    case 'EACCES':
    case 'EPERM':
      return `Permission denied: ${shown}.`;
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

function snippet(content: string, firstChangedLine: number, lastChangedLine: number): string {
  const { lines } = splitLines(content);
  const from = Math.max(1, firstChangedLine - SNIPPET_LINES);
  const to = Math.min(lines.length, lastChangedLine + SNIPPET_LINES);
  return numberLines(lines.slice(from - 1, to), from);
}

function capped(text: string, maxChars: number, hint: string): string {
  if (text.length <= maxChars) return text;
  const cut = text.lastIndexOf('\n', maxChars);
  const kept = text.slice(0, cut > 0 ? cut : maxChars);
  return `${kept}\n[output truncated at ${kept.length} of ${text.length} characters: ${hint}]`;
}

/** What every editor command works with. */
interface EditorContext {
  root: string;
  tracker: TextEditorOptions['tracker'];
  maxViewChars: number;
}

/** Runs `use` on the file opened race-free inside the worktree (see confined-open.ts), then closes it. */
async function withFile<T>(
  root: string,
  target: ConfinedPath,
  mode: OpenMode,
  shown: string,
  use: (handle: FileHandle) => Promise<T>,
): Promise<T> {
  const handle = await openConfined(await realpath(root), target.relative, mode, shown);
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

async function view(ctx: EditorContext, input: unknown): Promise<ToolOutput> {
  const { path, view_range: range } = parse(ViewInput, input);
  const target = await resolveInside(ctx.root, path);
  if ((await stat(target.absolute)).isDirectory()) {
    if (range) throw new ToolInputError('view_range is only allowed when path is a file, not a directory.');
    const { entries, truncated } = await listDirectory(target.absolute, target.relative, ctx.maxViewChars);
    const header = `Files and directories up to 2 levels deep in ${target.relative}, excluding hidden items and node_modules:`;
    const body = entries.length === 0 ? '(empty)' : entries.join('\n');
    const note = truncated
      ? `\n[listing truncated at ${ctx.maxViewChars} characters: view a subdirectory]`
      : '';
    return ok(`${header}\n${body}${note}`);
  }
  const text = await withFile(ctx.root, target, 'read', path, (handle) => readTextFile(handle, path));
  const { lines } = splitLines(text);
  let first = 1;
  let last = lines.length;
  if (range) {
    const [start, end] = range;
    const bad = (why: string) => new ToolInputError(`Invalid view_range [${start}, ${end}]: ${why}.`);
    if (start < 1 || start > lines.length) {
      throw bad(`its first element must be a line of the file, within [1, ${lines.length}]`);
    }
    if (end !== -1 && (end < start || end > lines.length)) {
      throw bad(`its second element must be -1 (end of file) or within [${start}, ${lines.length}]`);
    }
    first = start;
    last = end === -1 ? lines.length : end;
  }
  ctx.tracker.record('read', target.relative);
  if (lines.length === 0) return ok(`(${target.relative} is empty)`);
  const numbered = numberLines(lines.slice(first - 1, last), first);
  return ok(
    capped(numbered, ctx.maxViewChars, `use view_range to see the rest of its ${lines.length} lines`),
  );
}

async function create(ctx: EditorContext, input: unknown): Promise<ToolOutput> {
  const { path, file_text: text } = parse(CreateInput, input);
  const target = await resolveInside(ctx.root, path);
  const existing = await stat(target.absolute).catch((err: unknown) => {
    if (errorCode(err) === 'ENOENT') return undefined;
    throw err;
  });
  if (existing?.isDirectory()) throw new ToolInputError(`${path} is a directory, not a file.`);
  if (existing && !existing.isFile()) throw new ToolInputError(`${path} exists and is not a regular file.`);
  await withFile(ctx.root, target, 'create', path, (handle) => rewrite(handle, text));
  ctx.tracker.record(existing ? 'modified' : 'created', target.relative);
  return ok(
    existing ? `File overwritten: ${target.relative}` : `File created successfully at: ${target.relative}`,
  );
}

async function strReplace(ctx: EditorContext, input: unknown): Promise<ToolOutput> {
  const { path, old_str: oldStr, new_str } = parse(StrReplaceInput, input);
  const newStr = new_str ?? '';
  if (oldStr === '') {
    throw new ToolInputError(
      'old_str is empty: give the exact text to replace (use insert to add new lines).',
    );
  }
  const target = await resolveInside(ctx.root, path);
  return withFile(ctx.root, target, 'update', path, async (handle) => {
    const content = await readTextFile(handle, path);
    // Overlapping matches count too: "aa" in "aaa" is ambiguous.
    const at: number[] = [];
    for (let i = content.indexOf(oldStr); i !== -1; i = content.indexOf(oldStr, i + 1)) at.push(i);
    const index = at[0];
    if (index === undefined) {
      return fail(`No replacement was performed, old_str did not appear verbatim in ${path}.`);
    }
    if (at.length > 1) {
      const lines = [...new Set(at.map((i) => lineOf(content, i)))].join(', ');
      return fail(
        `No replacement was performed. Multiple occurrences of old_str in lines ${lines}. Please ensure it is unique`,
      );
    }
    // Slicing, not String.replace: `$&` and friends in new_str must stay literal.
    const edited = content.slice(0, index) + newStr + content.slice(index + oldStr.length);
    await rewrite(handle, edited);
    ctx.tracker.record('modified', target.relative);
    const firstLine = lineOf(edited, index);
    const lastLine = lineOf(edited, index + Math.max(0, newStr.length - 1));
    return ok(`Edited ${target.relative}. Snippet of the result:\n${snippet(edited, firstLine, lastLine)}`);
  });
}

async function insert(ctx: EditorContext, input: unknown): Promise<ToolOutput> {
  const { path, insert_line: after, insert_text, new_str } = parse(InsertInput, input);
  const text = insert_text ?? new_str;
  if (text === undefined || text === null)
    throw new ToolInputError('insert needs insert_text: the text to insert.');
  const target = await resolveInside(ctx.root, path);
  return withFile(ctx.root, target, 'update', path, async (handle) => {
    const file = splitLines(await readTextFile(handle, path));
    if (after < 0 || after > file.lines.length) {
      throw new ToolInputError(
        `Invalid insert_line ${after}: it must be within [0, ${file.lines.length}] (0 inserts at the top; ${path} has ${file.lines.length} lines).`,
      );
    }
    const added = text === '' ? [''] : splitLines(text).lines;
    const lines = [...file.lines.slice(0, after), ...added, ...file.lines.slice(after)];
    // An empty file takes the inserted text's own ending.
    const trailingNewline = file.lines.length === 0 ? text.endsWith('\n') : file.trailingNewline;
    const edited = joinLines({ lines, trailingNewline });
    await rewrite(handle, edited);
    ctx.tracker.record('modified', target.relative);
    const result = snippet(edited, after + 1, after + added.length);
    return ok(`Inserted ${added.length} line(s) into ${target.relative} after line ${after}:\n${result}`);
  });
}

export function createTextEditorTool(options: TextEditorOptions): AgentTool {
  const ctx: EditorContext = {
    root: options.root,
    tracker: options.tracker,
    maxViewChars: options.maxViewChars ?? 50_000,
  };
  const { maxViewChars } = ctx;
  const handlers = {
    view: (input: unknown) => view(ctx, input),
    create: (input: unknown) => create(ctx, input),
    str_replace: (input: unknown) => strReplace(ctx, input),
    insert: (input: unknown) => insert(ctx, input),
  };

  return {
    name: TOOL,
    definition: { type: 'text_editor_20250728', name: TOOL, max_characters: maxViewChars },
    async run(input, signal) {
      signal.throwIfAborted();
      const fields: Record<string, unknown> = typeof input === 'object' && input !== null ? { ...input } : {};
      const command = fields.command;
      if (command === 'undo_edit') {
        return fail(
          'undo_edit is not supported by text_editor_20250728: edit the file again to revert a change.',
        );
      }
      const known = COMMANDS.find((c) => c === command);
      if (known === undefined) {
        return fail(
          `${TOOL}: unknown command ${JSON.stringify(command)}; expected one of ${COMMANDS.join(', ')}.`,
        );
      }
      const path = typeof fields.path === 'string' ? fields.path : '(no path)';
      try {
        return await handlers[known](input);
      } catch (err) {
        return fail(describeFailure(err, path));
      }
    },
  };
}
