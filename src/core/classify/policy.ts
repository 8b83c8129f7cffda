/**
 * The closed set of failure classes and the one recovery action bound to each. Every adapter
 * (GitHub, model, CLI engines) classifies into this set, and every caller decides from the action.
 */

export const ERROR_CLASSES = [
  'rate_limit',
  'overloaded',
  'context_overflow',
  'auth',
  'billing',
  'permission',
  'not_found',
  'conflict',
  'invalid_request',
  'content_filter',
  'timeout',
  'network',
  'server_error',
  'aborted',
  'unknown',
] as const;

export type ErrorClass = (typeof ERROR_CLASSES)[number];

export const RECOVERY_ACTIONS = [
  'retry_backoff',
  'retry_once',
  'failover',
  'compact',
  'fail_fast',
  'manual_review',
  'diagnose',
] as const;

export type RecoveryAction = (typeof RECOVERY_ACTIONS)[number];

export interface ClassPolicy {
  action: RecoveryAction;
  /** Whether trying the same request again can succeed without anything else changing. */
  retryable: boolean;
  /** Whether switching to a fallback model is a remedy (the failure is specific to the model in use). */
  failover: boolean;
  /** What a person reading the failure should do about it. */
  summary: string;
}

export const CLASS_POLICY: Readonly<Record<ErrorClass, ClassPolicy>> = {
  rate_limit: {
    action: 'retry_backoff',
    retryable: true,
    failover: true,
    summary: 'back off (doubled, retry-after honoured), then fail over to the next model',
  },
  overloaded: {
    action: 'failover',
    retryable: true,
    failover: true,
    summary: 'the model is at capacity: switch to the next model, back off when there is none',
  },
  context_overflow: {
    action: 'compact',
    retryable: false,
    failover: false,
    summary: 'compact the conversation and retry; another model does not help',
  },
  auth: {
    action: 'fail_fast',
    retryable: false,
    failover: false,
    summary: 'stop: the credential is missing, wrong or expired',
  },
  billing: {
    action: 'fail_fast',
    retryable: false,
    failover: false,
    summary: 'stop: credits or the spend limit are exhausted; retrying only spends time',
  },
  permission: {
    action: 'fail_fast',
    retryable: false,
    failover: false,
    summary: 'stop: the credential lacks a permission or scope',
  },
  not_found: {
    action: 'fail_fast',
    retryable: false,
    failover: false,
    summary: 'stop: the resource does not exist or is not visible to this credential',
  },
  conflict: {
    action: 'retry_once',
    retryable: true,
    failover: false,
    summary: 'refresh the state and retry once',
  },
  invalid_request: {
    action: 'fail_fast',
    retryable: false,
    failover: false,
    summary: 'fail the attempt with the message: the request itself is wrong',
  },
  content_filter: {
    action: 'manual_review',
    retryable: false,
    failover: false,
    summary: 'hand the issue to a human: the content was refused',
  },
  timeout: {
    action: 'retry_once',
    retryable: true,
    failover: true,
    summary: 'retry once after a backoff, then fail over',
  },
  network: {
    action: 'retry_once',
    retryable: true,
    failover: false,
    summary: 'retry once after a backoff; the network, not the model, failed',
  },
  server_error: {
    action: 'retry_backoff',
    retryable: true,
    failover: false,
    summary: 'back off exponentially and retry',
  },
  aborted: {
    action: 'fail_fast',
    retryable: false,
    failover: false,
    summary: 'stop at once: the run was interrupted; never retried',
  },
  unknown: {
    action: 'diagnose',
    retryable: false,
    failover: false,
    summary: 'one cheap diagnosis call decides between retry and give up',
  },
};
