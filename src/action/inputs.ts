import { MAX_TIMER_MS, parseDuration } from '../config/duration.js';
import { parseValue } from '../config/overrides.js';
import { ConfigSchema } from '../config/schema.js';
import { kindAt } from '../config/schema-keys.js';
import { UsageError } from '../core/errors.js';

/**
 * The action's inputs (action.yml): the three tokens, how it decides what to work on, and the
 * settings a workflow most often wants to change. Everything else comes from the repository's
 * issueloop.config.yaml (or the `config` input); an input that is set wins over the file.
 */
export type ActionMode = 'auto' | 'issue' | 'drain';

/** Input name → config path. Values are parsed like `--set` and validated by the config schema. */
export const CONFIG_INPUTS = {
  label: 'label',
  workers: 'workers',
  model: 'model.primary',
  fallback_models: 'model.fallbacks',
  verify_command: 'verify.command',
  setup_command: 'session.setup',
  max_usd_per_issue: 'session.max_usd',
  max_usd: 'run_max_usd',
  empty_rounds: 'empty_rounds',
} as const;

export const TOKEN_INPUTS = ['github_token', 'projects_token', 'anthropic_api_key'] as const;

/** Every input action.yml declares; a test keeps the two in step. */
export const INPUT_NAMES = [
  ...TOKEN_INPUTS,
  'mode',
  ...Object.keys(CONFIG_INPUTS),
  'time_budget',
  'config',
  'allowed_bots',
] as const;

export const OUTPUT_NAMES = ['outcome', 'pr_url', 'issues_resolved', 'cost_usd'] as const;

export type GetInput = (name: string) => string;

export interface ActionInputs {
  githubToken: string;
  projectsToken: string;
  anthropicKey: string;
  mode: ActionMode;
  /** Typed flags for `loadConfig`, sourced as `input <name>` in its messages. */
  flags: Record<string, { value: unknown; flag: string }>;
  configPath?: string;
  /** Drain mode's wall-clock budget, ms. */
  timeBudgetMs: number;
  /** Bot logins allowed to trigger issue mode, lower case, without the `[bot]` suffix. */
  allowedBots: string[];
}

/** The token inputs, read first so the entrypoint can mask them before anything is logged. */
export function readTokens(getInput: GetInput): string[] {
  return TOKEN_INPUTS.map((name) => getInput(name)).filter((value) => value !== '');
}

export function botName(login: string): string {
  return login.toLowerCase().replace(/\[bot\]$/, '');
}

/** Reads and checks the inputs; a bad one is a UsageError naming the input and what it takes. */
export function readInputs(getInput: GetInput): ActionInputs {
  const mode = getInput('mode') || 'auto';
  if (mode !== 'auto' && mode !== 'issue' && mode !== 'drain') {
    throw new UsageError(`input mode: expected "auto", "issue" or "drain", got ${JSON.stringify(mode)}`);
  }
  const budgetText = getInput('time_budget') || '5h';
  const timeBudgetMs = parseDuration(budgetText);
  if (timeBudgetMs === undefined || timeBudgetMs < 60_000 || timeBudgetMs > MAX_TIMER_MS) {
    throw new UsageError(
      `input time_budget: expected a duration between 1m and 24d such as "5h" or "50m", below the job's timeout-minutes; got ${JSON.stringify(budgetText)}`,
    );
  }
  const flags: ActionInputs['flags'] = {};
  for (const [input, path] of Object.entries(CONFIG_INPUTS)) {
    const text = getInput(input);
    if (text === '') continue;
    flags[path] = { value: parseValue(text, kindAt(ConfigSchema, path.split('.'))), flag: `input ${input}` };
  }
  const configPath = getInput('config');
  return {
    githubToken: getInput('github_token'),
    projectsToken: getInput('projects_token'),
    anthropicKey: getInput('anthropic_api_key'),
    mode,
    flags,
    ...(configPath ? { configPath } : {}),
    timeBudgetMs,
    allowedBots: getInput('allowed_bots')
      .split(/[\s,]+/)
      .filter((login) => login !== '')
      .map(botName),
  };
}
