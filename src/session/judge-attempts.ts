import { z } from 'zod';
import { loadPrompt, renderTemplate } from '../agent/prompt-template.js';
import type { Redactor } from '../core/redact.js';
import { askForJson } from '../model/json-answer.js';
import type { CallModel, TokenUsage } from '../model/types.js';

/** One attempt at an issue that reached delivery, as the judge sees it. */
export interface AttemptCandidate {
  /** The attempt's number, 1 to N. */
  attempt: number;
  /** Passed the verify command (or there is none and the harness validated it as usual). */
  verified: boolean;
  /** Its diff against the start point: agent-written text. */
  diff: string;
  /** Lines added and removed: the tie-break. */
  linesChanged: number;
}

export interface JudgeVerdict {
  /** The attempt delivered; absent when no candidate was verified (nothing is pushed). */
  winner?: number;
  /** One line for the ledger and the PR body, written by the harness (a model's reason is clipped). */
  why: string;
  costUsd: number;
  /** Set when the judge model was called. */
  model?: string;
  modelCalls: number;
  usage?: TokenUsage;
}

export interface JudgeOptions {
  /** One plain call, as the diagnosis makes (no retries: the smaller diff is the fallback). */
  callModel: CallModel;
  /** `attempts.judge_model`, else `model.diagnosis_model`. */
  model: string;
  /** The issue as the agents were told it (already sanitised by the source). */
  issue: string;
  redact: Redactor;
  /** Characters of each diff the model sees (default 12,000), and of the issue (default 6,000). */
  maxDiffChars?: number;
  maxIssueChars?: number;
  signal?: AbortSignal;
}

const AnswerSchema = z.object({
  choice: z.int().min(0),
  reason: z.string().max(2_000).default(''),
});

/** The judge's own reason, as it may appear in a PR body: one line, bounded. */
const MAX_REASON = 200;

/**
 * Picks the attempt to deliver. An unverified attempt never wins (whatever its diff says); one
 * verified attempt wins without a model call; of two or more, one call to a cheap model compares
 * their diffs against the issue, and when it fails, does not parse, names no verified attempt or
 * calls a tie, the smaller diff wins (then the earlier attempt). Only an abort rejects.
 */
export async function judgeAttempts(
  candidates: readonly AttemptCandidate[],
  options: JudgeOptions,
): Promise<JudgeVerdict> {
  const verified = candidates.filter((c) => c.verified);
  const [only] = verified;
  if (only === undefined) return { why: 'no attempt passed verify', costUsd: 0, modelCalls: 0 };
  if (verified.length === 1) {
    return { winner: only.attempt, why: 'the only attempt that passed verify', costUsd: 0, modelCalls: 0 };
  }
  const smallest = smallerDiff(verified);
  const fallback = (because: string): Omit<JudgeVerdict, 'costUsd' | 'modelCalls'> => ({
    winner: smallest.attempt,
    why: `the smaller diff (${smallest.linesChanged} lines changed; ${because})`,
  });
  const prompt = renderTemplate(await loadPrompt('judge'), {
    issue: bounded(options.redact(options.issue), options.maxIssueChars ?? 6_000),
    candidates: verified.map((c) => candidateBlock(c, options)).join('\n\n'),
  });
  let asked: Awaited<ReturnType<typeof askForJson<z.infer<typeof AnswerSchema>>>>;
  try {
    asked = await askForJson(
      options.callModel,
      {
        model: options.model,
        system: 'You compare candidate code changes. Answer only with the JSON object asked for.',
        prompt,
        maxTokens: 500,
      },
      AnswerSchema,
      options.signal,
    );
  } catch (err) {
    if (options.signal?.aborted) throw err;
    return { ...fallback('the judge call failed'), costUsd: 0, modelCalls: 0 };
  }
  const { response, answer } = asked;
  const spent = { costUsd: response.costUsd, model: response.model, modelCalls: 1, usage: response.usage };
  if (!answer) return { ...fallback('the judge’s answer did not parse'), ...spent };
  const { choice, reason } = answer;
  if (choice === 0) return { ...fallback('the judge called it a tie'), ...spent };
  if (!verified.some((c) => c.attempt === choice)) {
    return { ...fallback(`the judge named attempt ${choice}, not a verified one`), ...spent };
  }
  const said = oneLine(options.redact(reason)).slice(0, MAX_REASON);
  return { winner: choice, why: `the judge’s pick${said ? `: ${said}` : ''}`, ...spent };
}

/** The fewest lines changed, then the earliest attempt. */
export function smallerDiff<T extends Pick<AttemptCandidate, 'attempt' | 'linesChanged'>>(
  candidates: readonly T[],
): T {
  const sorted = [...candidates].sort((a, b) => a.linesChanged - b.linesChanged || a.attempt - b.attempt);
  const first = sorted[0];
  if (first === undefined) throw new Error('smallerDiff: no candidate');
  return first;
}

/** Lines added and removed in a unified diff (its `+++`/`---` headers not counted). */
export function linesChangedIn(diff: string): number {
  let count = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ') || line.startsWith('--- ')) continue;
    if (line.startsWith('+') || line.startsWith('-')) count += 1;
  }
  return count;
}

/** A candidate's diff as data: redacted, bounded, in a fence no line of it can close. */
function candidateBlock(c: AttemptCandidate, options: JudgeOptions): string {
  const diff = bounded(options.redact(c.diff), options.maxDiffChars ?? 12_000);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(diff) + 1));
  return [`Attempt ${c.attempt} (${c.linesChanged} lines changed):`, `${fence}diff`, diff, fence].join('\n');
}

function bounded(text: string, max: number): string {
  return text.length > max
    ? `${text.slice(0, max)}\n[… ${text.length - max} more characters not shown]`
    : text;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
