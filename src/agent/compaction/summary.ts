import type { FileOperations } from '../tools/types.js';
import { DEFAULT_MAX_FAILURES, type ToolFailure } from './tool-failures.js';

export interface SummaryInput {
  /** The summariser's answer, expected to hold `## Decisions`, `## Current state`, `## Open task`. */
  modelSummary: string;
  files: FileOperations;
  failures: readonly ToolFailure[];
}

/** The model's sections, in the order they are written; the prompt asks for exactly these. */
export const MODEL_SECTIONS = ['Decisions', 'Current state', 'Open task'] as const;

/** A session can read hundreds of files; past this many a list names only how many more there were. */
export const MAX_LISTED_FILES = 100;

const NOT_STATED = '(not stated)';

/**
 * The handover text: what the harness knows for certain (files touched, tool failures) first, then
 * the model's account. The sections are fixed so that the next session always finds the same shape.
 */
export function formatCompactionSummary(input: SummaryInput): string {
  const created = new Set(input.files.created);
  const changed = [...new Set([...input.files.created, ...input.files.modified])]
    .sort()
    .map((path) => (created.has(path) ? `${path} (new)` : path));
  const model = modelSections(input.modelSummary);
  const sections = [
    section('Files read', list([...input.files.read].sort())),
    section('Files modified', list(changed)),
    section('Tool failures', list(input.failures.slice(-DEFAULT_MAX_FAILURES).map(formatFailure))),
    ...MODEL_SECTIONS.map((name) => section(name, model.get(name) || NOT_STATED)),
  ];
  return sections.join('\n\n');
}

function section(heading: string, body: string): string {
  return `## ${heading}\n${body}`;
}

function list(items: readonly string[]): string {
  if (items.length === 0) return 'none';
  const shown = items.slice(0, MAX_LISTED_FILES).map((item) => `- ${item}`);
  if (items.length > MAX_LISTED_FILES) shown.push(`- … and ${items.length - MAX_LISTED_FILES} more`);
  return shown.join('\n');
}

function formatFailure(failure: ToolFailure): string {
  const input = failure.input === '' ? '' : ` \`${failure.input.replaceAll('`', "'")}\``;
  return `${failure.tool}${input}: ${failure.error || '(no output)'}`;
}

/**
 * Splits the model's answer by its headings. Headings of any level and a trailing colon are
 * accepted, since models vary; a heading that is not one of ours stays text of the section it is in,
 * so nothing the model wrote is lost, demoted below our `##` so that it cannot pass for a section; text before the first of our headings goes to `Current state`,
 * the section a free-form summary most resembles. Headings inside code fences are text.
 */
function modelSections(summary: string): Map<string, string> {
  const byName = new Map<string, string[]>();
  const preamble: string[] = [];
  let current: string[] = preamble;
  let fence = false;
  for (const line of summary.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const name = fence ? undefined : ourHeading(line);
    if (name === undefined) {
      current.push(fence ? line : demoted(line));
      continue;
    }
    current = byName.get(name) ?? [];
    byName.set(name, current);
  }
  const texts = new Map<string, string>();
  for (const name of MODEL_SECTIONS) texts.set(name, (byName.get(name) ?? []).join('\n').trim());
  const loose = preamble.join('\n').trim();
  if (loose !== '')
    texts.set('Current state', [loose, texts.get('Current state')].filter(Boolean).join('\n\n'));
  return texts;
}

function demoted(line: string): string {
  return line.replace(/^\s{0,3}#{1,2}(\s)/, '###$1');
}

function ourHeading(line: string): string | undefined {
  const match = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
  const text = match?.[1]
    ?.replace(/[:*_]+$/g, '')
    .replace(/^[*_]+/, '')
    .trim()
    .toLowerCase();
  return MODEL_SECTIONS.find((name) => name.toLowerCase() === text);
}
