import type { ToolDefinition } from '../../model/types.js';

/** What a tool hands back: text for the model, and whether it is a failure (`is_error`). */
export interface ToolOutput {
  content: string;
  isError: boolean;
}

/**
 * A client tool the agent can call. `run` never throws for a failure the model can act on (bad path,
 * command failed, timeout): it returns `isError: true` with the reason, so failures stay data.
 */
export interface AgentTool {
  readonly name: string;
  readonly definition: ToolDefinition;
  run(input: unknown, signal: AbortSignal): Promise<ToolOutput>;
}

export type FileOperation = 'read' | 'created' | 'modified';

/** Paths relative to the worktree, with `/` separators, sorted. */
export interface FileOperations {
  read: string[];
  created: string[];
  modified: string[];
}
