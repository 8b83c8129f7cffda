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

export const TOKEN_INPUTS = [
  'github_token',
  'projects_token',
  'anthropic_api_key',
  'app_private_key',
] as const;

/** The GitHub App's identifiers: not secret, but the App route is chosen by them. */
export const APP_INPUTS = ['app_id', 'app_installation_id'] as const;

/** Every input action.yml declares; a test keeps the two in step. */
export const INPUT_NAMES = [
  ...TOKEN_INPUTS,
  ...APP_INPUTS,
  'mode',
  ...Object.keys(CONFIG_INPUTS),
  'time_budget',
  'config',
  'allowed_bots',
] as const;

export const OUTPUT_NAMES = [
  'outcome',
  'pr_url',
  'issues_resolved',
  'cost_usd',
  'merged',
  'usd_per_merged_pr',
] as const;

export type GetInput = (name: string) => string;

export interface ActionInputs {
  githubToken: string;
  projectsToken: string;
  anthropicKey: string;
  /** A GitHub App the action mints its own tokens for: its id (or client id), key, installation. */
  app?: { id: string; privateKey: string; installationId?: string };
  mode: ActionMode;
  /** Typed flags for `loadConfig`, sourced as `input <name>` in its messages. */
  flags: Record<string, { value: unknown; flag: string }>;
  configPath?: string;
  /** Drain mode's wall-clock budget, ms. */
  timeBudgetMs: number;
  /** Bot logins allowed to trigger issue mode, lower case, without the `[bot]` suffix. */
  allowedBots: string[];
}

/**
 * The token inputs, read first so the entrypoint can mask them before anything is logged. A
 * multi-line one (the App's PEM key) is given line by line too: the runner masks a log line by what
 * it contains, and a key printed in pieces would otherwise show its lines.
 */
export function readTokens(getInput: GetInput): string[] {
  const values = TOKEN_INPUTS.map((name) => getInput(name)).filter((value) => value !== '');
  const lines = values
    .filter((value) => value.includes('\n'))
    .flatMap((value) => value.split(/\r?\n/))
    .map((line) => line.trim())
    .filter((line) => line.length >= 16 && !/^-----(BEGIN|END) /.test(line));
  return [...values, ...lines];
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
  const app = readApp(getInput);
  return {
    githubToken: getInput('github_token'),
    projectsToken: getInput('projects_token'),
    anthropicKey: getInput('anthropic_api_key'),
    ...(app ? { app } : {}),
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

/** `app_id` and `app_private_key` go together; `app_installation_id` only beside them. */
function readApp(getInput: GetInput): ActionInputs['app'] {
  const id = getInput('app_id').trim();
  const privateKey = getInput('app_private_key');
  const installationId = getInput('app_installation_id').trim();
  if (!id && !privateKey) {
    if (installationId)
      throw new UsageError('input app_installation_id is set without app_id and app_private_key');
    return undefined;
  }
  if (!id)
    throw new UsageError("input app_private_key is set without app_id: pass the App's id (or client id) too");
  if (!privateKey) {
    throw new UsageError(
      `input app_id is set without app_private_key: pass \`app_private_key: $\{{ secrets.ISSUELOOP_APP_PRIVATE_KEY }}\` (the PEM file's text)`,
    );
  }
  if (installationId && !/^\d+$/.test(installationId)) {
    throw new UsageError(
      `input app_installation_id: expected a number, got ${JSON.stringify(installationId)}`,
    );
  }
  return { id, privateKey, ...(installationId ? { installationId } : {}) };
}
