import type { z } from 'zod';
import { IssueloopError } from '../../core/errors.js';

/** A tool input the model can fix (bad path, bad arguments); tools turn it into an `is_error` result. */
export class ToolInputError extends IssueloopError {
  constructor(message: string) {
    super('tool_input', message);
  }
}

/** zod issues as one line per field, e.g. `invalid input for bash: command: expected string, received number`. */
export function formatInputError(tool: string, error: z.ZodError): string {
  const problems = error.issues.map((issue) => {
    const where = issue.path.length === 0 ? 'input' : issue.path.map(String).join('.');
    return `${where}: ${issue.message.replace(/^Invalid input: /, '')}`;
  });
  return `invalid input for ${tool}: ${problems.join('; ')}`;
}
