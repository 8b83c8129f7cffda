import type { AgentTool } from './types.js';

/** The editor's commands that change nothing. */
const READING_COMMANDS = new Set(['view']);

/**
 * The text editor for a session that only reads (a plan session): `view` works as usual, every
 * other command is refused with a tool error the model can act on, and the file is left as it was.
 */
export function readingOnly(editor: AgentTool): AgentTool {
  return {
    name: editor.name,
    definition: editor.definition,
    run(input, signal) {
      const command = (input as { command?: unknown } | null)?.command;
      if (typeof command === 'string' && READING_COMMANDS.has(command)) return editor.run(input, signal);
      return Promise.resolve({
        isError: true,
        content: `this session only reads the repository to write a plan: "${String(command)}" changes files and is not available; use "view"`,
      });
    },
  };
}
