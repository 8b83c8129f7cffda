import { compactConversation } from './compaction/compact.js';
import { estimateTokens } from './compaction/estimate-tokens.js';
import { compactionPercent } from './compaction/should-compact.js';
import { account, emit, finish, type Loop, type Next, type Turn } from './loop-state.js';
import type { FileOperations } from './tools/types.js';

/** Seed 002: if the context still overflows after two compactions, something is fundamentally wrong. */
export const MAX_COMPACTION_ATTEMPTS = 2;

const EMPTY_FILES: FileOperations = { read: [], created: [], modified: [] };

/** The compaction the last call asked for; a third in a row, or a failed one, ends the turn. */
export async function compactNow(loop: Loop, turn: Turn): Promise<Next> {
  const pending = turn.pendingCompaction as NonNullable<Turn['pendingCompaction']>;
  turn.compactions += 1;
  let problem: string | undefined;
  try {
    problem = await compact(loop, pending.trigger, turn.compactions, pending.context);
  } catch (err) {
    if (loop.signal.aborted) return { result: finish(loop, turn, 'aborted', 'interrupted') };
    throw err;
  }
  if (problem) return { result: finish(loop, turn, 'context_overflow', problem) };
  turn.pendingCompaction = undefined;
  return { again: true };
}

/** Returns a failure reason, or undefined when the conversation was compacted. */
async function compact(
  loop: Loop,
  trigger: 'threshold' | 'overflow',
  attempt: number,
  context: number,
): Promise<string | undefined> {
  const { options } = loop;
  if (attempt > MAX_COMPACTION_ATTEMPTS) {
    return `context still over the limit after ${MAX_COMPACTION_ATTEMPTS} compactions`;
  }
  const result = await compactConversation({
    messages: loop.messages,
    callModel: options.callModel,
    model: options.model,
    maxTokens: options.maxOutputTokens,
    files: options.files?.() ?? EMPTY_FILES,
    // Never keep more than half of what is there: the estimate can be far below the API's count.
    keepTokens: Math.min(loop.keepTokens, Math.floor(estimateTokens(loop.messages) / 2)),
    signal: loop.signal,
  });
  if (result.usage) {
    account(loop, result.usage, result.costUsd ?? 0);
    loop.totals.modelCalls += 1;
  }
  if (!result.ok) {
    emit(loop, {
      type: 'compaction',
      trigger,
      attempt,
      ok: false,
      beforeTokens: context,
      reason: result.reason,
    });
    return `compaction failed: ${result.reason}`;
  }
  loop.messages = result.messages;
  loop.totals.compactions += 1;
  emit(loop, {
    type: 'compaction',
    trigger,
    attempt,
    ok: true,
    beforeTokens: context,
    afterTokens: result.afterTokens,
  });
  options.log?.info(
    { trigger, beforeTokens: context, afterTokens: result.afterTokens },
    `compaction: context at ${compactionPercent(context, options.contextWindow)}%, starting fresh session with summary`,
  );
  return undefined;
}
