/**
 * The attribute and metric names telemetry uses, in one place: the GenAI semantic conventions are
 * still in development (names as in @opentelemetry/semantic-conventions/incubating), so a rename is
 * one edit here. issueloop's own names are namespaced `issueloop.*`.
 */
export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  /** The older name of `gen_ai.provider.name`, still read by many backends. */
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  tokenType: 'gen_ai.token.type',
  /** The conventions' `error.type`, on a failed call's duration. */
  errorType: 'error.type',
  /** Histogram of tokens per model call, by `gen_ai.token.type`. */
  tokenUsage: 'gen_ai.client.token.usage',
  /** Histogram of a model call's duration in seconds. */
  operationDuration: 'gen_ai.client.operation.duration',
} as const;

export const ISSUELOOP = {
  runId: 'issueloop.run.id',
  repo: 'issueloop.repo',
  round: 'issueloop.round',
  issue: 'issueloop.issue.number',
  attempt: 'issueloop.attempt',
  /** The model that answered a session's last call (after any failover). */
  model: 'issueloop.model',
  outcome: 'issueloop.outcome',
  costUsd: 'issueloop.cost_usd',
  claimed: 'issueloop.claimed',
  stop: 'issueloop.stop',
  errorClass: 'issueloop.error_class',
  toolError: 'issueloop.tool.is_error',
  gitCommand: 'issueloop.git.command',
  githubOperation: 'issueloop.github.operation',
  /** Counter: dollars spent on model calls. */
  dollars: 'issueloop.cost',
  /** Counter: tokens by `gen_ai.token.type` (input, output, cache_read, cache_creation). */
  tokens: 'issueloop.tokens',
  /** Counter: sessions ended, by `issueloop.outcome`. */
  sessions: 'issueloop.sessions',
  /** Histogram: a session's dollars, by `issueloop.outcome`. */
  sessionCost: 'issueloop.session.cost',
  /** Histogram: a session's duration in seconds, by `issueloop.outcome`. */
  sessionDuration: 'issueloop.session.duration',
} as const;
