import { loadPrompt, PROMPTS_DIR, PromptError, renderTemplate, splitSections } from './prompt-template.js';

/**
 * Best-of-N (issue 32): attempts that all get the same first message explore alike, and the judge
 * gets little to choose from. Each attempt's first message ends with its own direction, from
 * `prompts/attempt-directions.md` (maintainers edit it): its first `## ` section is the intro, with
 * `{{attempt}}` and `{{attempts}}`; each further section is one direction, given in order to attempt
 * 1, 2, …, starting again past the last.
 */
export interface AttemptDirections {
  version: string;
  intro: string;
  directions: ReadonlyArray<{ title: string; text: string }>;
}

export const DIRECTIONS_PROMPT = 'attempt-directions';

export async function loadDirections(dir: URL = PROMPTS_DIR): Promise<AttemptDirections> {
  const template = await loadPrompt(DIRECTIONS_PROMPT, dir);
  const [intro, ...rest] = splitSections(template.body).sections;
  if (!intro || rest.length === 0) {
    throw new PromptError(
      `prompts/${DIRECTIONS_PROMPT}.md (${template.version}) needs an intro section and at least one direction section (each starting "## ")`,
    );
  }
  const directions = rest.map((section) => ({
    title: section.heading,
    text: section.text.split('\n').slice(1).join('\n').trim(),
  }));
  const loaded = { version: template.version, intro: intro.text, directions };
  // A placeholder missing or unknown is found here, once, not in every attempt's first message.
  renderDirection(loaded, 1, 1);
  return loaded;
}

/** Attempt `k` of `n`'s direction (k counts from 1; past the list's end it starts again). */
export function renderDirection(directions: AttemptDirections, k: number, n: number): string {
  const intro = renderTemplate(
    { name: DIRECTIONS_PROMPT, version: directions.version, body: directions.intro },
    { attempt: String(k), attempts: String(n) },
  );
  const direction = directions.directions[(k - 1) % directions.directions.length];
  if (!direction) return intro;
  return `${intro}\n\n**${direction.title}.** ${direction.text}`;
}
