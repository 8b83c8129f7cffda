import { z } from 'zod';
import type { Redactor } from '../core/redact.js';
import type { CallModel, ModelResponse } from '../model/types.js';
import { loadPrompt, renderTemplate } from './prompt-template.js';

export const DiagnosisSchema = z.object({
  retry: z.boolean(),
  reason: z.string().max(2_000).default(''),
  hint: z.string().max(2_000).default(''),
});

export type Diagnosis = z.infer<typeof DiagnosisSchema>;

export interface DiagnoseOptions {
  /** One plain call: the diagnosis is itself the fallback, it gets no retries of its own. */
  callModel: CallModel;
  /** `model.diagnosis_model`, a cheap one. */
  model: string;
  /** What the failed attempt was doing, e.g. `Issue #12: title`. */
  task: string;
  logTail: string;
  redact: Redactor;
  maxLogChars?: number;
  signal?: AbortSignal;
}

export interface DiagnosisResult {
  diagnosis?: Diagnosis;
  /** Why there is no diagnosis (call failed, answer not the JSON asked for). */
  problem?: string;
  response?: ModelResponse;
}

/** The first `{…}` object in a text, so a model that wraps its JSON in prose or a fence still counts. */
function firstJsonObject(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

/**
 * Seed 001's `analyze_failure`, only for failures of class `unknown`: one call to a cheap model with
 * the redacted tail of the log, answering `{retry, reason, hint}`. Never throws for a bad answer —
 * no diagnosis means "do not retry"; only an abort rejects.
 */
export async function diagnoseFailure(options: DiagnoseOptions): Promise<DiagnosisResult> {
  const max = options.maxLogChars ?? 4_000;
  const redacted = options.redact(options.logTail);
  const logTail = redacted.length > max ? `…${redacted.slice(-max)}` : redacted;
  const prompt = renderTemplate(await loadPrompt('diagnosis'), {
    task: options.redact(options.task),
    log_tail: logTail,
  });
  let response: ModelResponse;
  try {
    response = await options.callModel(
      {
        model: options.model,
        system: [
          'You diagnose failed automated coding sessions. Answer only with the JSON object asked for.',
        ],
        messages: [{ role: 'user', content: prompt }],
        tools: [],
        maxTokens: 1_000,
      },
      options.signal,
    );
  } catch (err) {
    if (options.signal?.aborted) throw err;
    return { problem: `diagnosis call failed: ${(err as Error).message}` };
  }
  const text = response.content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('')
    .trim();
  const parsed = DiagnosisSchema.safeParse(firstJsonObject(text));
  if (!parsed.success) {
    return {
      problem: `diagnosis answer is not {"retry", "reason", "hint"} JSON: ${text.slice(0, 200)}`,
      response,
    };
  }
  const diagnosis = {
    ...parsed.data,
    hint: options.redact(parsed.data.hint),
    reason: options.redact(parsed.data.reason),
  };
  return { diagnosis, response };
}
