import type { z } from 'zod';
import type { CallModel, ModelResponse } from './types.js';

export interface JsonQuestion {
  model: string;
  /** The system prompt's one line: what the model is for, and that it answers only with JSON. */
  system: string;
  prompt: string;
  maxTokens: number;
}

/**
 * One tool-less call that asks a cheap model for a JSON object (the failure diagnosis, the best-of-N
 * judge): the answer's text, and the first `{…}` in it read with `schema` (undefined when there is
 * none or it does not fit). A failed call throws what the call threw; callers decide what that means.
 */
export async function askForJson<T>(
  callModel: CallModel,
  question: JsonQuestion,
  schema: z.ZodType<T>,
  signal?: AbortSignal,
): Promise<{ response: ModelResponse; text: string; answer: T | undefined }> {
  const response = await callModel(
    {
      model: question.model,
      system: [question.system],
      messages: [{ role: 'user', content: question.prompt }],
      tools: [],
      maxTokens: question.maxTokens,
    },
    signal,
  );
  const text = response.content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('')
    .trim();
  const parsed = schema.safeParse(firstJsonObject(text));
  return { response, text, answer: parsed.success ? parsed.data : undefined };
}

/** The text from its first `{` to its last `}`, parsed; undefined when that is not JSON. */
export function firstJsonObject(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}
