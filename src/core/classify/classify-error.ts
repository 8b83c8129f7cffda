import { type Redactor, redact as redactPatterns } from '../redact.js';
import {
  type Decision,
  fromAnthropicType,
  fromGraphql,
  fromNames,
  fromNodeCode,
  fromStatus,
} from './decisions.js';
import { type ErrorFacts, gatherFacts } from './error-facts.js';
import { CLASS_POLICY, type ErrorClass, type RecoveryAction } from './policy.js';
import { classifyText } from './text-patterns.js';

export { GITHUB_SECONDARY_DEFAULT_MS } from './decisions.js';

export type ErrorSource = 'anthropic' | 'github' | 'network' | 'text' | 'unknown';

export interface ClassifiedError {
  errorClass: ErrorClass;
  action: RecoveryAction;
  retryable: boolean;
  /** Whether a fallback model is a remedy for this failure. */
  failover: boolean;
  /** How long the server asked us to wait, when it said so (or when a rate-limit reset implies it). */
  retryAfterMs?: number;
  status?: number;
  source: ErrorSource;
  /** GitHub's primary (hourly quota) or secondary (abuse) rate limit. */
  rateLimit?: 'primary' | 'secondary';
  /** One line, redacted, safe to show a user or to write to a comment. */
  message: string;
  /** What a person can do about it, when it is theirs to fix. */
  hint?: string;
}

export interface ClassifyContext {
  /** Epoch ms, to turn reset times and HTTP dates into waits. Without it those waits stay unknown. */
  now?: number;
  redact?: Redactor;
}

const MAX_MESSAGE = 300;

function fromText(err: unknown, facts: ErrorFacts): Decision | undefined {
  // A bare string is a log tail: only failure-looking lines count. An error's own message is a failure.
  const match = typeof err === 'string' ? classifyText(err) : classifyText(facts.messages.join('\n'), true);
  return match ? { errorClass: match.errorClass, message: match.line } : undefined;
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  return lines.at(-1) ?? text;
}

function sourceOf(facts: ErrorFacts, decidedBy: 'structured' | 'text' | 'none'): ErrorSource {
  if (facts.source) return facts.source;
  if (decidedBy === 'text') return 'text';
  if (facts.nodeCode || facts.namedConnection || facts.namedTimeout) return 'network';
  return 'unknown';
}

function oneLine(text: string, redactor: Redactor): string {
  const flat = redactor(text).replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}

const GITHUB_TEXT = /github|\bgh:|\bgit\b|bad credentials/i;
const ANTHROPIC_TEXT = /anthropic|claude|x-api-key|api key|authentication_error/i;

function hintFor(errorClass: ErrorClass, source: ErrorSource, message: string): string | undefined {
  const github = source === 'github' || (source !== 'anthropic' && GITHUB_TEXT.test(message));
  const anthropic = source === 'anthropic' || (source !== 'github' && ANTHROPIC_TEXT.test(message));
  switch (errorClass) {
    case 'auth':
      if (github) {
        return 'GitHub rejected the token: set a valid GH_TOKEN or GITHUB_TOKEN (GH_TOKEN wins) that can access the repository';
      }
      if (anthropic) return 'Anthropic rejected the API key: set a valid ANTHROPIC_API_KEY';
      return 'a credential was rejected: check GH_TOKEN or GITHUB_TOKEN (GH_TOKEN wins) for GitHub and ANTHROPIC_API_KEY for Anthropic';
    case 'billing':
      return 'add credits or raise the spend limit in the Anthropic Console (Settings → Limits), then run again';
    case 'permission':
      if (github) {
        return 'the token lacks a permission: a classic token needs the `repo` scope (and `project` for Projects v2); a fine-grained or Actions token needs contents, issues and pull-requests write';
      }
      return 'the credential is not allowed to use this resource; check its permissions';
    case 'not_found':
      if (github)
        return 'check the repository slug and issue or project number, and that the token can see them';
      if (anthropic) return 'check the model id in model.primary and model.fallbacks';
      return undefined;
    case 'content_filter':
      return 'the content was refused; a human needs to review the issue';
    default:
      return undefined;
  }
}

/**
 * Classifies any failure into the closed set, from structured fields first (abort, GraphQL
 * `errors[].type`, Anthropic `error.type`, HTTP status with GitHub's rate-limit headers, Node and
 * undici codes, SDK error names), falling back to the text table only for unstructured input.
 */
export function classifyError(err: unknown, ctx: ClassifyContext = {}): ClassifiedError {
  const redactor = ctx.redact ?? redactPatterns;
  const facts = gatherFacts(err);
  let decision: Decision | undefined;
  let decidedBy: 'structured' | 'text' | 'none' = 'structured';
  if (facts.aborted) {
    decision = { errorClass: 'aborted', message: facts.messages[0] ?? 'aborted' };
  } else {
    decision =
      fromGraphql(facts, ctx.now) ??
      fromAnthropicType(facts, ctx.now) ??
      fromStatus(facts, ctx.now) ??
      fromNodeCode(facts) ??
      fromNames(facts);
  }
  if (!decision) {
    decision = fromText(err, facts);
    decidedBy = decision ? 'text' : 'none';
  }
  const decided: Decision = decision ?? {
    errorClass: 'unknown',
    // For a log tail the newest line says most; for an error, its own (outermost) message.
    message: typeof err === 'string' ? lastLine(err) : (facts.messages[0] ?? String(err)),
  };
  // fetch's own "fetch failed" says nothing: its cause says why ("bad port", an invalid URL).
  const cause = facts.messages.slice(1).find((m) => m !== decided.message);
  const final: Decision =
    decided.message === 'fetch failed' && cause ? { ...decided, message: `fetch failed: ${cause}` } : decided;
  const policy = CLASS_POLICY[final.errorClass];
  const source = sourceOf(facts, decidedBy);
  const result: ClassifiedError = {
    errorClass: final.errorClass,
    action: policy.action,
    retryable: policy.retryable,
    failover: policy.failover,
    source,
    message: oneLine(final.message, redactor) || final.errorClass,
  };
  if (final.retryAfterMs !== undefined) result.retryAfterMs = final.retryAfterMs;
  if (facts.status !== undefined) result.status = facts.status;
  if (final.rateLimit) result.rateLimit = final.rateLimit;
  const hint = hintFor(final.errorClass, source, result.message);
  if (hint) result.hint = hint;
  return result;
}
