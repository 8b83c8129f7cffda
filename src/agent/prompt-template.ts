import { readFile } from 'node:fs/promises';
import { IssueloopError } from '../core/errors.js';

/** `prompts/` at the package root: two levels up from `src/agent/` and from `dist/agent/`. */
export const PROMPTS_DIR = new URL('../../prompts/', import.meta.url);

export interface PromptTemplate {
  name: string;
  /** From the file's first line, `<!-- prompt: <name> v<N> -->`; recorded with every session. */
  version: string;
  body: string;
}

const HEADER = /^<!--\s*prompt:\s*([a-z0-9-]+)\s+(v\d+)\s*-->\r?\n/;
const PLACEHOLDER = /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g;

export class PromptError extends IssueloopError {
  constructor(message: string) {
    super('prompt_invalid', message);
  }
}

export function parsePrompt(name: string, text: string): PromptTemplate {
  const header = HEADER.exec(text);
  if (!header || header[1] !== name) {
    throw new PromptError(`prompts/${name}.md must start with "<!-- prompt: ${name} v<N> -->"`);
  }
  return { name, version: header[2] ?? 'v0', body: text.slice(header[0].length) };
}

const cache = new Map<string, Promise<PromptTemplate>>();

/** Reads `prompts/<name>.md` once per process. */
export function loadPrompt(name: string, dir: URL = PROMPTS_DIR): Promise<PromptTemplate> {
  const key = new URL(`${name}.md`, dir).href;
  let pending = cache.get(key);
  if (!pending) {
    pending = readFile(new URL(key), 'utf8').then((text) => parsePrompt(name, text));
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
  }
  return pending;
}

/**
 * Fills `{{name}}` placeholders. A placeholder without a value, or a value nobody asked for, is a
 * bug in the caller, reported rather than sent to the model as a literal `{{…}}`.
 */
export function renderTemplate(template: PromptTemplate, values: Readonly<Record<string, string>>): string {
  const used = new Set<string>();
  const missing = new Set<string>();
  const text = template.body.replace(PLACEHOLDER, (_match, key: string) => {
    used.add(key);
    const value = values[key];
    if (value === undefined) {
      missing.add(key);
      return '';
    }
    return value;
  });
  const unused = Object.keys(values).filter((key) => !used.has(key));
  if (missing.size > 0 || unused.length > 0) {
    const parts = [];
    if (missing.size > 0) parts.push(`no value for ${[...missing].join(', ')}`);
    if (unused.length > 0) parts.push(`no placeholder for ${unused.join(', ')}`);
    throw new PromptError(`prompts/${template.name}.md (${template.version}): ${parts.join('; ')}`);
  }
  return text.trim();
}

export interface Section {
  heading: string;
  text: string;
}

export function splitSections(markdown: string): { preamble: string; sections: Section[] } {
  const lines = markdown.split(/\r?\n/);
  const sections: Section[] = [];
  const preamble: string[] = [];
  let current: { heading: string; lines: string[] } | undefined;
  let fence = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const heading = fence ? null : /^##\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      if (current) sections.push({ heading: current.heading, text: current.lines.join('\n').trimEnd() });
      current = { heading: heading[1] ?? '', lines: [line] };
    } else if (current) current.lines.push(line);
    else preamble.push(line);
  }
  if (current) sections.push({ heading: current.heading, text: current.lines.join('\n').trimEnd() });
  return { preamble: preamble.join('\n').trim(), sections };
}

const normal = (heading: string) => heading.trim().toLowerCase();

/**
 * Seed 004 task 5: a rule lives in one place. A `## Heading` section of `override` whose heading the
 * base also has replaces the base's section where it stands; other sections and loose text are
 * returned as `extra`, for the caller to place once.
 */
export function replaceSections(base: string, override: string): { text: string; extra: string } {
  const ours = splitSections(base);
  const theirs = splitSections(override);
  const replacements = new Map(theirs.sections.map((s) => [normal(s.heading), s]));
  const merged = ours.sections.map((section) => {
    const replacement = replacements.get(normal(section.heading));
    if (!replacement) return section.text;
    replacements.delete(normal(section.heading));
    return replacement.text;
  });
  const extra = [theirs.preamble, ...[...replacements.values()].map((s) => s.text)]
    .filter((part) => part !== '')
    .join('\n\n');
  const text = [ours.preamble, ...merged].filter((part) => part !== '').join('\n\n');
  return { text, extra };
}
