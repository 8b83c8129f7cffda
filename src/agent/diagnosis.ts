import { z } from 'zod';
import type { Redactor } from '../core/redact.js';
import { askForJson } from '../model/json-answer.js';
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
  let asked: Awaited<ReturnType<typeof askForJson<z.infer<typeof DiagnosisSchema>>>>;
  try {
    asked = await askForJson(
      options.callModel,
      {
        model: options.model,
        system: 'You diagnose failed automated coding sessions. Answer only with the JSON object asked for.',
        prompt,
        maxTokens: 1_000,
      },
      DiagnosisSchema,
      options.signal,
    );
  } catch (err) {
    if (options.signal?.aborted) throw err;
    return { problem: `diagnosis call failed: ${(err as Error).message}` };
  }
  const { response, text, answer } = asked;
  if (!answer) {
    return {
      problem: `diagnosis answer is not {"retry", "reason", "hint"} JSON: ${text.slice(0, 200)}`,
      response,
    };
  }
  const diagnosis = { ...answer, hint: options.redact(answer.hint), reason: options.redact(answer.reason) };
  return { diagnosis, response };
}
