import { existsSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/**
 * Seed 003: when a Claude Code attempt fails (a billing or rate limit) and the native engine takes
 * over, it should not start cold. Claude Code keeps the session in
 * `~/.claude/projects/<project>/<session-id>.jsonl`; the fallback's first prompt starts with a
 * prelude built from it, the way Claude Code itself resumes after `/compact`: the latest compaction
 * summary, then the turns after the latest compact boundary.
 */

/** The prelude's whole body stays within this many characters. */
export const PRELUDE_MAX_CHARS = 8_000;
/** A summary longer than this is cut and marked `(truncated)`; the rest of the budget is for turns. */
export const SUMMARY_MAX_CHARS = 4_000;
const TOOL_RESULT_CHARS = 200;
export const PRELUDE_LABEL = 'Prior session context (from claude-code)';

export interface SessionTurn {
  role: 'user' | 'assistant';
  /** Text, with tool blocks shortened to `(tool call: name)` / `(tool result: …)`. */
  text: string;
}

export interface SessionSeed {
  /** The latest compaction's summary: its own `summary` entry, else the boundary's content. */
  summary?: string;
  /** The turns after the latest compact boundary, oldest first. */
  turns: SessionTurn[];
}

type Entry = Record<string, unknown>;

function blockText(block: unknown): string {
  if (typeof block === 'string') return block;
  if (!block || typeof block !== 'object') return '';
  const b = block as Entry;
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? b.text : '';
    case 'tool_use':
      return `(tool call: ${typeof b.name === 'string' ? b.name : 'tool'})`;
    case 'tool_result': {
      const content = Array.isArray(b.content) ? b.content.map(blockText).join(' ') : blockText(b.content);
      const flat = content.replace(/\s+/g, ' ').trim();
      return `(tool result: ${flat.length > TOOL_RESULT_CHARS ? `${flat.slice(0, TOOL_RESULT_CHARS - 1)}…` : flat})`;
    }
    default:
      return '';
  }
}

function turnOf(entry: Entry): SessionTurn | undefined {
  if (entry.type !== 'user' && entry.type !== 'assistant') return undefined;
  const message = entry.message as Entry | undefined;
  const content = message?.content ?? entry.content;
  const text = (Array.isArray(content) ? content.map(blockText) : [blockText(content)])
    .filter((part) => part.trim() !== '')
    .join('\n')
    .trim();
  return text ? { role: entry.type, text } : undefined;
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (Array.isArray(value)) return value.map(blockText).join('\n').trim() || undefined;
  return undefined;
}

/** What the CLI writes into the conversation that no one said: its own command echoes and caveats. */
const CLI_NOISE =
  /^<(?:command-name|command-message|local-command-stdout|local-command-stderr|local-command-caveat)>/;

/**
 * Entries that are not the conversation: the CLI's meta messages (`isMeta`: a command caveat, a
 * `/compact` echo), its own error messages (`isApiErrorMessage`, model `<synthetic>`), and its
 * command echoes.
 */
function isNoise(entry: Entry): boolean {
  if (entry.isMeta === true || entry.isApiErrorMessage === true) return true;
  const message = entry.message as Entry | undefined;
  if (message?.model === '<synthetic>') return true;
  const content = message?.content ?? entry.content;
  const first = Array.isArray(content) ? blockText(content[0]) : blockText(content);
  return CLI_NOISE.test(first.trimStart());
}

/** The uuids a boundary keeps from before it (`compactMetadata.preservedSegment` or `.preservedMessages`). */
function preservedUuids(boundary: Entry, parents: ReadonlyMap<string, string | undefined>): string[] {
  const meta = boundary.compactMetadata as Entry | undefined;
  const listed = meta?.preservedMessages as unknown;
  const uuids = Array.isArray(listed) ? listed : (listed as Entry | undefined)?.uuids;
  if (Array.isArray(uuids)) return uuids.filter((u): u is string => typeof u === 'string');
  const segment = meta?.preservedSegment as Entry | undefined;
  if (typeof segment?.tailUuid !== 'string' || typeof segment.headUuid !== 'string') return [];
  // The segment is a chain: from its tail up the parents to its head.
  const chain: string[] = [];
  let at: string | undefined = segment.tailUuid;
  while (at !== undefined && !chain.includes(at)) {
    chain.unshift(at);
    if (at === segment.headUuid) return chain;
    at = parents.get(at);
  }
  return []; // A broken chain: the CLI itself gives up on it.
}

/**
 * The seed from a session file's lines. A 2.1.x compaction is a `compact_boundary` system entry whose
 * summary is the next entry, a user message marked `isCompactSummary`; older files wrote `summary`
 * entries before the boundary, which are paired with it, and a boundary without either uses its own
 * content. Turns before the latest boundary are what its summary covers and are dropped, except those
 * the boundary preserved. A summary after the last boundary, which no boundary took, is used only
 * when the file has no boundary at all. The CLI's own meta and error messages are not turns.
 * Unreadable lines are skipped.
 */
export function seedFromSessionLines(text: string): SessionSeed {
  let pending: string | undefined;
  let summary: string | undefined;
  let boundaries = 0;
  let turns: SessionTurn[] = [];
  const byUuid = new Map<string, Entry>();
  const parents = new Map<string, string | undefined>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let entry: Entry;
    try {
      entry = JSON.parse(line) as Entry;
    } catch {
      continue;
    }
    if (typeof entry.uuid === 'string') {
      byUuid.set(entry.uuid, entry);
      parents.set(entry.uuid, typeof entry.parentUuid === 'string' ? entry.parentUuid : undefined);
    }
    if (entry.type === 'summary') {
      pending = textOf(entry.summary) ?? pending;
    } else if (entry.type === 'system' && entry.subtype === 'compact_boundary') {
      boundaries += 1;
      summary = pending ?? textOf(entry.content);
      pending = undefined;
      turns = preservedUuids(entry, parents).flatMap((uuid) => {
        const kept = byUuid.get(uuid);
        const turn = kept && !isNoise(kept) ? turnOf(kept) : undefined;
        return turn ? [turn] : [];
      });
    } else if (entry.isCompactSummary === true) {
      const message = entry.message as Entry | undefined;
      summary = textOf(message?.content ?? entry.content) ?? summary;
    } else if (!isNoise(entry)) {
      const turn = turnOf(entry);
      if (turn) turns.push(turn);
    }
  }
  if (boundaries === 0 && pending !== undefined) summary = pending;
  return { ...(summary !== undefined ? { summary } : {}), turns };
}

/**
 * The prelude: the summary (cut at SUMMARY_MAX_CHARS and marked), then the newest turns that fit
 * in what is left of PRELUDE_MAX_CHARS, as one contiguous window — chosen newest first, stopping at
 * the first turn that does not fit (a gap would mislead more than a shorter window), shown oldest
 * first. Undefined when there is nothing to say.
 */
export function formatPrelude(seed: SessionSeed): string | undefined {
  const parts: string[] = [];
  let used = 0;
  if (seed.summary) {
    const marker = ' (truncated)';
    const summary =
      seed.summary.length > SUMMARY_MAX_CHARS
        ? `${seed.summary.slice(0, SUMMARY_MAX_CHARS - marker.length).trimEnd()}${marker}`
        : seed.summary;
    parts.push(`Summary of the earlier session:\n${summary}`);
    used += summary.length;
  }
  const window: string[] = [];
  for (let i = seed.turns.length - 1; i >= 0; i--) {
    const turn = seed.turns[i] as SessionTurn;
    const shown = `${turn.role}: ${turn.text}`;
    if (used + shown.length > PRELUDE_MAX_CHARS) break;
    window.unshift(shown);
    used += shown.length;
  }
  if (window.length > 0) parts.push(`Most recent turns:\n${window.join('\n')}`);
  if (parts.length === 0) return undefined;
  return `${PRELUDE_LABEL}:\n${parts.join('\n\n')}`;
}

/** Claude Code's project directory name for a working directory: every non-alphanumeric is a `-`. */
export function claudeProjectName(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/** Where the pinned CLI cuts a long project name (2.1.328: `MTe=200`). */
const PROJECT_NAME_MAX = 200;

/** The CLI's hash of a path for a long project name: 31·h + c over UTF-16 code units, in 32 bits. */
function cliHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = ((hash << 5) - hash + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * The directory under `projects/` where the pinned CLI keeps the sessions of a working directory:
 * claudeProjectName, and past 200 characters its first 200 then `-` and the path's hash in base 36.
 */
export function claudeProjectDir(cwd: string): string {
  const name = claudeProjectName(cwd);
  if (name.length <= PROJECT_NAME_MAX) return name;
  return `${name.slice(0, PROJECT_NAME_MAX)}-${Math.abs(cliHash(cwd)).toString(36)}`;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** A session id issueloop will pass back to the CLI (`--resume <id>`) or look up as a file name. */
export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID.test(value);
}

/**
 * The session file of `sessionId` for a worktree, or undefined when the id or the resolved path
 * would leave the worktree's directory in `<claudeHome>/projects/` (a crafted id, a symlink out).
 */
export async function sessionFilePath(
  claudeHome: string,
  cwd: string,
  sessionId: string,
): Promise<string | undefined> {
  if (!isSessionId(sessionId)) return undefined;
  const projects = join(claudeHome, 'projects');
  const name = `${sessionId}.jsonl`;
  // The claude sandbox shows the CLI this project's directory only (claude-scope.ts): the session
  // is there, under the worktree's path as given or as resolved, and must resolve to a file in it
  // (a symlink the agent planted there could point at another project's transcript).
  const real = await realpath(cwd).catch(() => cwd);
  const dirs = [cwd, real].map((path) => join(projects, claudeProjectDir(path)));
  const dir = dirs.find((path) => existsSync(join(path, name))) ?? (dirs[0] as string);
  try {
    const [root, found] = await Promise.all([realpath(dir), realpath(join(dir, name))]);
    const inside = relative(root, found);
    if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || inside.startsWith(sep))
      return undefined;
    // A hard link's other name may be anywhere the claude process could reach (its own login).
    const info = await stat(found);
    if (!info.isFile() || info.nlink > 1) return undefined;
    return found;
  } catch {
    return undefined;
  }
}

export interface ReadSeedOptions {
  claudeHome: string;
  cwd: string;
  sessionId: string;
  /** Claude Code may not have flushed its last lines yet: read once more after this wait (ms). */
  flushDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** The seed for a failed session; undefined when its file is missing, unsafe or says nothing. */
export async function readSessionSeed(options: ReadSeedOptions): Promise<SessionSeed | undefined> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const attempt = async (): Promise<SessionSeed | undefined> => {
    const path = await sessionFilePath(options.claudeHome, options.cwd, options.sessionId);
    if (!path) return undefined;
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    const seed = seedFromSessionLines(text);
    return seed.summary || seed.turns.length > 0 ? seed : undefined;
  };
  const first = await attempt();
  if (first) return first;
  await sleep(options.flushDelayMs ?? 250);
  return attempt();
}
