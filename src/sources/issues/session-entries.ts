import type { SessionEntry } from '../../claims/outcome-record.js';
import type { TrackedSession } from '../../github/tracked-sessions.js';

/**
 * An outcome record's session entries as the tracking comment lists them, and back: the comment
 * keeps what a fresh store needs to count the dollars of the sessions it never saw.
 */
export function trackedSession(entry: SessionEntry): TrackedSession {
  return {
    kind: entry.kind,
    at: entry.at,
    run_id: entry.run_id,
    engine: entry.engine,
    models: [...entry.models],
    tokens: [entry.input_tokens, entry.output_tokens, entry.cache_read_tokens, entry.cache_write_tokens],
    usd: entry.usd,
    duration_ms: entry.duration_ms,
    outcome: entry.outcome,
  };
}

export function sessionEntry(tracked: TrackedSession): SessionEntry {
  const [input, output, cacheRead, cacheWrite] = tracked.tokens;
  return {
    kind: tracked.kind,
    at: tracked.at,
    run_id: tracked.run_id,
    engine: tracked.engine,
    models: [...tracked.models],
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    usd: tracked.usd,
    duration_ms: tracked.duration_ms,
    outcome: tracked.outcome,
  };
}
