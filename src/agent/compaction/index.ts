export {
  type CompactionOptions,
  type CompactionResult,
  compactConversation,
  DEFAULT_TRANSCRIPT_CHARS,
  ORIGINAL_TASK_PREFIX,
  SUMMARY_PREFIX,
} from './compact.js';
export { chooseKeepFrom, isSafeCut } from './cut-points.js';
export { estimateTokens } from './estimate-tokens.js';
export { pairingProblems } from './pairing.js';
export { compactionLogLine, compactionPercent, shouldCompact } from './should-compact.js';
export { formatCompactionSummary, MODEL_SECTIONS, type SummaryInput } from './summary.js';
export {
  DEFAULT_MAX_FAILURES,
  extractToolFailures,
  type ToolFailure,
  type ToolFailureOptions,
} from './tool-failures.js';
export { renderTranscript, type TranscriptOptions } from './transcript.js';
