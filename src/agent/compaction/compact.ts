import type {
  CallModel,
  ContentBlockParam,
  MessageParam,
  ModelResponse,
  TokenUsage,
} from '../../model/types.js';
import { loadPrompt, renderTemplate } from '../prompt-template.js';
import type { FileOperations } from '../tools/types.js';
import { blocksOf, textOf } from './content-blocks.js';
import { chooseKeepFrom } from './cut-points.js';
import { estimateTokens } from './estimate-tokens.js';
import { pairingProblems } from './pairing.js';
import { formatCompactionSummary } from './summary.js';
import { extractToolFailures } from './tool-failures.js';
import { renderTranscript } from './transcript.js';

export interface CompactionOptions {
  messages: readonly MessageParam[];
  callModel: CallModel;
  model: string;
  /** Output budget of the summary call. */
  maxTokens: number;
  /** Files the session touched, from the tools: facts the summary states without asking the model. */
  files: FileOperations;
  /** Estimated tokens of recent turns to keep verbatim (see `chooseKeepFrom`). */
  keepTokens: number;
  /** Cap on the transcript of dropped turns sent to the summariser. */
  transcriptChars?: number;
  signal?: AbortSignal;
}

export type CompactionResult =
  | {
      ok: true;
      /** The new conversation: the summary message, then the kept turns verbatim. */
      messages: MessageParam[];
      summary: string;
      /** Estimates (`estimateTokens`) of the conversation before and after. */
      beforeTokens: number;
      afterTokens: number;
      /** Index in the old conversation of the first message kept verbatim. */
      keptFrom: number;
      usage: TokenUsage;
      costUsd: number;
    }
  | { ok: false; reason: string; usage?: TokenUsage; costUsd?: number };

export const DEFAULT_TRANSCRIPT_CHARS = 60_000;
export const SUMMARY_PREFIX = 'CONTEXT FROM PREVIOUS SESSION:';
export const ORIGINAL_TASK_PREFIX = 'ORIGINAL TASK:';
const SUMMARISER_SYSTEM = 'You summarise coding sessions for handover.';

/**
 * Replaces the older part of a conversation with a summary written by the model, keeping the most
 * recent turns verbatim. Failures are results, not exceptions, so the loop can decide what to do
 * (end the session, give up on the issue); only an abort rejects. A compaction that does not shrink
 * the context is a failure, never a loop. A missing or broken `prompts/compaction.md` is a packaging
 * bug and throws.
 */
export async function compactConversation(options: CompactionOptions): Promise<CompactionResult> {
  const { messages, signal } = options;
  signal?.throwIfAborted();
  const beforeTokens = estimateTokens(messages);
  const keptFrom = chooseKeepFrom(messages, options.keepTokens);
  const dropped = messages.slice(0, keptFrom);
  const kept = messages.slice(keptFrom);
  if (dropped.length === 0) return { ok: false, reason: 'nothing to compact' };

  const transcript = renderTranscript(dropped, {
    maxChars: options.transcriptChars ?? DEFAULT_TRANSCRIPT_CHARS,
  });
  // The transcript is data inside <transcript> tags; a closing tag in it must not end them early.
  const prompt = renderTemplate(await loadPrompt('compaction'), {
    transcript: transcript.replaceAll('</transcript>', '<\\/transcript>'),
  });

  let response: ModelResponse;
  try {
    response = await options.callModel(
      {
        model: options.model,
        system: [SUMMARISER_SYSTEM],
        messages: [{ role: 'user', content: prompt }],
        tools: [],
        maxTokens: options.maxTokens,
      },
      signal,
    );
  } catch (err) {
    if (signal?.aborted) throw err;
    return { ok: false, reason: `summary call failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  // A call that ignored the abort still must not hand a result to a loop that was told to stop.
  signal?.throwIfAborted();
  const spent = { usage: response.usage, costUsd: response.costUsd };

  const modelSummary = response.content
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n')
    .trim();
  if (response.stopReason === 'refusal') return { ok: false, reason: 'the summariser refused', ...spent };
  if (modelSummary === '') return { ok: false, reason: 'the summariser returned an empty summary', ...spent };

  const summary = formatCompactionSummary({
    modelSummary,
    files: options.files,
    // Failures in the kept turns are still in view verbatim; only the dropped ones need retelling.
    failures: extractToolFailures(dropped),
  });
  const next = rebuild(summary, messages[0], keptFrom, kept);
  const afterTokens = estimateTokens(next);
  if (afterTokens >= beforeTokens) {
    return {
      ok: false,
      reason: `compaction did not shrink the context (estimated ${beforeTokens} → ${afterTokens} tokens)`,
      ...spent,
    };
  }
  const problems = pairingProblems(next);
  if (problems.length > 0) {
    return { ok: false, reason: `compacted conversation is malformed: ${problems.join('; ')}`, ...spent };
  }
  return { ok: true, messages: next, summary, beforeTokens, afterTokens, keptFrom, ...spent };
}

/**
 * The summary opens the new conversation as a user message. The safe cut guarantees that a kept
 * user message holds no tool results, so the summary can share it (two user messages in a row would
 * be merged by the API anyway); before a kept assistant message it stands alone.
 */
function rebuild(
  summary: string,
  original: MessageParam | undefined,
  keptFrom: number,
  kept: readonly MessageParam[],
): MessageParam[] {
  // The issue statement is the one message every later turn depends on: it survives the cut.
  const task = keptFrom > 0 && original?.role === 'user' ? textOf(original).trim() : '';
  const text =
    task === ''
      ? `${SUMMARY_PREFIX}\n${summary}`
      : `${SUMMARY_PREFIX}\n${summary}\n\n${ORIGINAL_TASK_PREFIX}\n${task}`;
  const summaryBlock: ContentBlockParam = { type: 'text', text };
  const [first, ...rest] = kept;
  if (first?.role === 'user') return [{ role: 'user', content: [summaryBlock, ...blocksOf(first)] }, ...rest];
  return [{ role: 'user', content: [summaryBlock] }, ...kept];
}
