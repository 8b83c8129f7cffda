import type { BootFile } from './project-files.js';
import { loadPrompt, renderTemplate, replaceSections } from './prompt-template.js';

export interface SystemPromptInputs {
  repo: string;
  branch: string;
  verifyCommand?: string | undefined;
  maxModelCallsPerTurn: number;
  boot?: BootFile | undefined;
  /** What the session works on: a GitHub issue (the default) or a task of a local task file. */
  subject?: WorkSubject;
}

export type WorkSubject = 'issue' | 'task';

const ASSIGNMENT: Record<WorkSubject, string> = {
  issue: 'GitHub issue',
  task: 'task of a plan (a local task file)',
};

export interface SystemPrompt {
  text: string;
  /** `system v2`: recorded with the session, so a ledger says which prompt produced a result. */
  version: string;
}

/**
 * `prompts/system.md` filled in, with the project's boot file applied: a boot section whose heading
 * the system prompt has (say `## Rules`) replaces that section in place — one place for each rule
 * (seed 004 task 5) — and everything else becomes the `## Project context` section at the end.
 */
export async function renderSystemPrompt(inputs: SystemPromptInputs): Promise<SystemPrompt> {
  const template = await loadPrompt('system');
  const verify = inputs.verifyCommand
    ? `\`${inputs.verifyCommand}\` must pass; the harness runs it again after you finish.`
    : 'no verify command is configured: run the repository’s own tests if it has any.';
  let text = renderTemplate(template, {
    repo: inputs.repo,
    branch: inputs.branch,
    verify,
    max_calls_per_turn: String(inputs.maxModelCallsPerTurn),
    assignment: ASSIGNMENT[inputs.subject ?? 'issue'],
    subject: inputs.subject ?? 'issue',
  });
  if (inputs.boot) {
    const merged = replaceSections(text, inputs.boot.text);
    text = merged.text;
    if (merged.extra !== '') text += `\n\n## Project context (from ${inputs.boot.path})\n${merged.extra}`;
  }
  return { text, version: `${template.name} ${template.version}` };
}
