import { z } from 'zod';

/**
 * The sessions an issue's tracking comment lists, so that what they cost survives the state
 * directory: a new runner (every Actions job without a cache) imports them into its outcome record,
 * and `report`'s dollars per merged PR come out the same there. They ride on their own hidden line,
 * `<!-- issueloop:sessions … -->`, beside the record: a reader from before this line matches only
 * `issueloop:record` (its schema is strict, a new field there would make it drop the whole history),
 * so it ignores this one.
 *
 * The line is untrusted input like the record: the newest MAX_TRACKED_SESSIONS, every field checked
 * (names to a plain alphabet, numbers finite and bounded), and a list that breaks any rule is not
 * issueloop's and is dropped whole.
 */
export const SESSIONS_OPEN = '<!-- issueloop:sessions ';
const SESSIONS_LINE = /^<!-- issueloop:sessions ([A-Za-z0-9_-]+) -->\r?$/;

/** Enough for the follow-ups of any issue worth reporting on; ~15 KiB of a 64 KiB comment at most. */
export const MAX_TRACKED_SESSIONS = 50;
const MAX_MODELS = 8;
const MAX_SESSIONS_BYTES = 32 * 1024;
const MAX_ENCODED = Math.ceil(MAX_SESSIONS_BYTES / 3) * 4;
/** Far above any session's cost, duration or tokens: a larger figure is not a session's. */
const MAX_USD = 100_000;
const MAX_DURATION_MS = 30 * 86_400_000;
const MAX_TOKENS = 1e12;

/** One session as the comment keeps it: tokens as `[input, output, cache_read, cache_write]`. */
export interface TrackedSession {
  kind: 'attempt' | 'ci_followup' | 'review_followup' | 'base_merge';
  /** ISO 8601: when it ended. */
  at: string;
  run_id: string;
  engine: 'native' | 'claude-code';
  models: string[];
  tokens: [number, number, number, number];
  usd: number;
  duration_ms: number;
  outcome: string;
}

const tokens = z.int().nonnegative().max(MAX_TOKENS);

const TrackedSessionSchema = z.strictObject({
  kind: z.enum(['attempt', 'ci_followup', 'review_followup', 'base_merge']),
  at: z.iso.datetime({ offset: true }),
  run_id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
  engine: z.enum(['native', 'claude-code']),
  models: z.array(z.string().regex(/^[A-Za-z0-9._:@/-]{1,100}$/)).max(MAX_MODELS),
  tokens: z.tuple([tokens, tokens, tokens, tokens]),
  usd: z.number().nonnegative().max(MAX_USD),
  duration_ms: z.int().nonnegative().max(MAX_DURATION_MS),
  outcome: z.string().regex(/^[A-Za-z0-9_:.-]{1,100}$/),
});

const TrackedSessionsSchema = z.array(TrackedSessionSchema).max(MAX_TRACKED_SESSIONS);

/** Only the entries issueloop would accept back, newest MAX_TRACKED_SESSIONS, copied. */
export function storedSessions(sessions: readonly TrackedSession[]): TrackedSession[] {
  return sessions
    .flatMap((s) => {
      const parsed = TrackedSessionSchema.safeParse(s);
      return parsed.success ? [parsed.data as TrackedSession] : [];
    })
    .slice(-MAX_TRACKED_SESSIONS);
}

const keyOf = (s: TrackedSession) => `${s.run_id} ${s.at} ${s.kind}`;

/**
 * What the comment lists after a write: the sessions it listed (`carried`) and the writer's, each
 * once (a session is its run, end and kind), oldest first, the newest MAX_TRACKED_SESSIONS. A writer
 * that knows fewer sessions than the comment (a fresh store) does not erase the others.
 */
export function mergeSessions(
  carried: readonly TrackedSession[],
  fresh: readonly TrackedSession[],
): TrackedSession[] {
  const byKey = new Map<string, TrackedSession>();
  for (const s of [...carried, ...fresh]) byKey.set(keyOf(s), s);
  return storedSessions([...byKey.values()].sort((a, b) => Date.parse(a.at) - Date.parse(b.at)));
}

/** The hidden line, or '' when there is nothing to list. */
export function sessionsLine(sessions: readonly TrackedSession[]): string {
  const kept = storedSessions(sessions);
  if (kept.length === 0) return '';
  return `${SESSIONS_OPEN}${Buffer.from(JSON.stringify(kept), 'utf8').toString('base64url')} -->`;
}

/**
 * The sessions a comment body lists; undefined for no line, two lines (someone pasted one: which is
 * genuine cannot be told), or a list that breaks any rule. Never throws.
 */
export function parseSessionsLine(body: string): TrackedSession[] | undefined {
  const at = body.indexOf(SESSIONS_OPEN);
  if (at === -1 || body.indexOf(SESSIONS_OPEN, at + 1) !== -1) return undefined;
  if (at > 0 && body[at - 1] !== '\n') return undefined;
  const eol = body.indexOf('\n', at);
  const line = body.slice(at, eol === -1 ? body.length : eol);
  if (line.length > MAX_ENCODED + SESSIONS_OPEN.length + 5) return undefined;
  const encoded = SESSIONS_LINE.exec(line)?.[1];
  if (encoded === undefined) return undefined;
  try {
    const parsed = TrackedSessionsSchema.safeParse(
      JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')),
    );
    return parsed.success ? (parsed.data as TrackedSession[]) : undefined;
  } catch {
    return undefined;
  }
}
