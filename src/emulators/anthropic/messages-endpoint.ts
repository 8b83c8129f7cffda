import { type ApiFailure, ERROR_STATUS, failure, invalidRequest } from './errors.js';
import { type MessageJson, type OutputBlock, usageJson } from './message.js';
import { checkToolPairing } from './pairing.js';
import { flattenPrompt, type PromptBlock, promptTokens } from './prompt-blocks.js';
import type { PromptCache } from './prompt-cache.js';
import { parseMessagesRequest } from './request.js';
import { messageEvents } from './sse.js';
import { estimateTokens } from './tokens.js';
import type { ModelSpec, ParsedMessagesRequest, ReplyBlock, Script, ScriptedReply } from './types.js';

export type Outcome =
  | { kind: 'json'; body: unknown }
  | { kind: 'failure'; failure: ApiFailure }
  | { kind: 'events'; events: string[] }
  | { kind: 'hang' };

export interface MessagesDeps {
  models: Record<string, ModelSpec>;
  script: Script;
  cache: PromptCache;
  /** Deterministic ids, counted per emulator. */
  nextId(kind: 'msg' | 'toolu'): string;
}

type Validated =
  | { ok: true; request: ParsedMessagesRequest; blocks: PromptBlock[] }
  | { ok: false; failure: ApiFailure };

/** Everything the API checks before it runs the model, in the order it reports them. */
function validate(body: unknown, endpoint: 'messages' | 'count_tokens', deps: MessagesDeps): Validated {
  const parsed = parseMessagesRequest(body, endpoint);
  if (!parsed.ok) return parsed;
  const { request } = parsed;
  const model = Object.hasOwn(deps.models, request.model) ? deps.models[request.model] : undefined;
  if (!model) return { ok: false, failure: failure('not_found_error', `model: ${request.model}`) };
  if (request.maxTokens > model.maxTokens) {
    const message =
      `max_tokens: ${request.maxTokens} > ${model.maxTokens}, which is the maximum allowed number of ` +
      `output tokens for ${request.model}`;
    return { ok: false, failure: invalidRequest(message) };
  }
  const pairing = checkToolPairing(request.messages);
  if (pairing) return { ok: false, failure: invalidRequest(pairing) };
  const blocks = flattenPrompt(request);
  const total = promptTokens(blocks);
  // count_tokens exists to measure a prompt, so it answers even for one the model would refuse.
  if (endpoint === 'messages' && total > model.maxInputTokens) {
    return {
      ok: false,
      failure: invalidRequest(`prompt is too long: ${total} tokens > ${model.maxInputTokens} maximum`),
    };
  }
  return { ok: true, request, blocks };
}

function withIds(content: readonly ReplyBlock[], deps: MessagesDeps): OutputBlock[] {
  return content.map((block) =>
    block.type === 'text'
      ? { type: 'text', text: block.text }
      : { type: 'tool_use', id: block.id ?? deps.nextId('toolu'), name: block.name, input: block.input },
  );
}

function estimateOutput(content: readonly OutputBlock[]): number {
  return Math.max(
    1,
    content.reduce((sum, block) => sum + estimateTokens(block), 0),
  );
}

export function answerCountTokens(body: unknown, deps: MessagesDeps): Outcome {
  const checked = validate(body, 'count_tokens', deps);
  if (!checked.ok) return { kind: 'failure', failure: checked.failure };
  return { kind: 'json', body: { input_tokens: promptTokens(checked.blocks) } };
}

/** Consults the script only for valid requests; the cache is touched only when the model "ran". */
export function createMessagesAnswerer(deps: MessagesDeps): (body: unknown) => Promise<Outcome> {
  let calls = 0;

  const message = (
    request: ParsedMessagesRequest,
    blocks: PromptBlock[],
    content: OutputBlock[],
    stopReason: MessageJson['stop_reason'],
    outputTokens: number,
  ): MessageJson => {
    const usage = deps.cache.account(blocks);
    deps.cache.record(usage, outputTokens);
    return {
      id: deps.nextId('msg'),
      type: 'message',
      role: 'assistant',
      model: request.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: usageJson(usage, outputTokens),
    };
  };

  return async (body) => {
    const checked = validate(body, 'messages', deps);
    if (!checked.ok) return { kind: 'failure', failure: checked.failure };
    const { request, blocks } = checked;
    let scripted: ScriptedReply;
    try {
      scripted = await deps.script(request, calls++);
    } catch (error) {
      // Surfaces as an API error the test can see, the same way in-process and over loopback.
      const reason = error instanceof Error ? error.message : String(error);
      return { kind: 'failure', failure: failure('api_error', `script failed: ${reason}`) };
    }

    if ('hang' in scripted) return { kind: 'hang' };
    if ('error' in scripted) return { kind: 'failure', failure: scripted.error };
    if ('streamError' in scripted) {
      const { type, message: text } = scripted.streamError;
      if (!request.stream) {
        return { kind: 'failure', failure: { status: ERROR_STATUS[type], type, message: text } };
      }
      const content = withIds(scripted.content ?? [], deps);
      const afterBlocks = Math.min(scripted.afterBlocks ?? content.length, content.length);
      const sent = message(request, blocks, content, null, estimateOutput(content.slice(0, afterBlocks)));
      return { kind: 'events', events: messageEvents(sent, { type, message: text, afterBlocks }) };
    }

    const content = withIds(scripted.content, deps);
    const answer = message(
      request,
      blocks,
      content,
      scripted.stopReason,
      scripted.outputTokens ?? estimateOutput(content),
    );
    return request.stream
      ? { kind: 'events', events: messageEvents(answer) }
      : { kind: 'json', body: answer };
  };
}
