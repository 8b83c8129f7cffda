export interface FirstMessageInputs {
  number: number;
  /** Already sanitised ([github] sanitizeIssueTitle, where the issue enters): one clean line. */
  title: string;
  /** Already sanitised ([github] sanitizeIssueText): comments, invisible characters removed. */
  body: string;
  /** The tail of an interrupted attempt's output (seed 000 feature 6). */
  interruptedContext?: string | undefined;
  /** From the diagnosis of the previous attempt's unknown failure (seed 001). */
  hint?: string | undefined;
}

/**
 * The session's first user message: `Issue #<n>: <title>` then the body (design.md's contract), then
 * what earlier attempts left behind.
 */
export function renderFirstMessage(inputs: FirstMessageInputs): string {
  const parts = [`Issue #${inputs.number}: ${inputs.title.trim()}`];
  const body = inputs.body.trim();
  parts.push(body === '' ? '(The issue has no description.)' : body);
  return withResumeNotes(parts, inputs).join('\n\n');
}

/** What earlier attempts left, after the work's own text (seed 000 feature 6, seed 001's hint). */
export function withResumeNotes(
  parts: readonly string[],
  resume: Pick<FirstMessageInputs, 'interruptedContext' | 'hint'> | undefined,
): string[] {
  const all = [...parts];
  if (resume?.interruptedContext?.trim()) {
    all.push(`CONTEXT FROM INTERRUPTED ATTEMPT: ${resume.interruptedContext.trim()}`);
  }
  if (resume?.hint?.trim()) all.push(`IMPORTANT HINT FROM PREVIOUS ATTEMPT: ${resume.hint.trim()}`);
  return all;
}
