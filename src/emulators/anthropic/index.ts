export { createAnthropicEmulator, DEFAULT_API_KEY, DEFAULT_BASE_URL } from './create-emulator.js';
export { ERROR_STATUS } from './errors.js';
export { DEFAULT_MODELS } from './models.js';
export { flattenPrompt, type PromptBlock, promptTokens } from './prompt-blocks.js';
export { CACHE_LOOKBACK_BLOCKS, DEFAULT_MIN_CACHEABLE_TOKENS } from './prompt-cache.js';
export { parseMessagesRequest } from './request.js';
export { echoScript, type QueuedReply, reply, scriptQueue, type ToolCall } from './script.js';
export { BYTES_PER_TOKEN, canonicalJson, estimateTokens } from './tokens.js';
export type {
  AnthropicEmulator,
  AnthropicEmulatorOptions,
  AnthropicRequestLog,
  ApiErrorType,
  CacheStats,
  CacheTtl,
  ListeningEmulator,
  ModelSpec,
  ParsedMessagesRequest,
  ReplyBlock,
  RequestBlock,
  RequestMessage,
  RequestTool,
  Script,
  ScriptedError,
  ScriptedReply,
  StopReason,
} from './types.js';
