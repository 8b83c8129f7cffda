import type { ToolDefinition } from '../../model/types.js';
import type { CommandSandbox } from '../../sandbox/sandbox.js';
import { createBashTool } from './bash-tool.js';
import { createFileTracker, type FileTracker } from './file-tracker.js';
import { readingOnly } from './read-only.js';
import { scrubEnv } from './scrub-env.js';
import { createTextEditorTool } from './text-editor.js';
import type { AgentTool, ToolOutput } from './types.js';

export interface ToolsetOptions {
  /** Worktree the tools are confined to. */
  root: string;
  /** The raw environment (e.g. process.env): secrets are scrubbed here, before any command sees it. */
  env: Readonly<Record<string, string | undefined>>;
  /** More variable names to keep from commands, beyond the built-in names and patterns. */
  extraSecretNames?: readonly string[];
  bashTimeoutMs?: number;
  /** Cap on one bash result: head and tail are kept around an omitted-characters marker. */
  maxOutputChars?: number;
  /** Where the bash tool's commands run (see src/sandbox/). */
  sandbox?: CommandSandbox;
  /** Reading tools only (a plan session): the editor's `view`, no bash. */
  readOnly?: boolean;
  /** Pass one in to share it across toolsets (e.g. after a session restart); a new one otherwise. */
  tracker?: FileTracker;
}

export interface Toolset {
  tools: AgentTool[];
  definitions: ToolDefinition[];
  tracker: FileTracker;
  /** Runs a tool call. Resolves with failures as `isError` results; rejects only when `signal` aborted. */
  run(name: string, input: unknown, signal: AbortSignal): Promise<ToolOutput>;
}

export function createToolset(options: ToolsetOptions): Toolset {
  const tracker = options.tracker ?? createFileTracker();
  const editor = createTextEditorTool({ root: options.root, tracker });
  const tools: AgentTool[] = options.readOnly
    ? [readingOnly(editor)]
    : [
        editor,
        createBashTool({
          root: options.root,
          env: scrubEnv(options.env, options.extraSecretNames),
          timeoutMs: options.bashTimeoutMs ?? 120_000,
          maxOutputChars: options.maxOutputChars ?? 30_000,
          ...(options.sandbox ? { sandbox: options.sandbox } : {}),
        }),
      ];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  return {
    tools,
    definitions: tools.map((tool) => tool.definition),
    tracker,
    async run(name, input, signal) {
      const tool = byName.get(name);
      if (tool === undefined) {
        return {
          isError: true,
          content: `unknown tool "${name}"; available: ${[...byName.keys()].join(', ')}`,
        };
      }
      try {
        return await tool.run(input, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        // A bug in a tool is still something the model can route around; the session goes on.
        const message = err instanceof Error ? err.message : String(err);
        return { isError: true, content: `${name} failed unexpectedly: ${message}` };
      }
    },
  };
}
