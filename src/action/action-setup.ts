import { readFile } from 'node:fs/promises';
import type { Config } from '../config/schema.js';
import { UsageError } from '../core/errors.js';
import { createRedactor, learnSecret, type Redactor } from '../core/redact.js';
import { canWrite } from '../github/trust.js';
import type { RunBase } from '../run/open-run.js';
import { type Env, secretsFromEnv } from '../run/secrets.js';
import type { RunOptions } from '../scheduler/run-rounds.js';
import type { ActionIo } from './action-io.js';
import type { ActionEvent, Actor } from './event.js';
import { type ActionInputs, botName } from './inputs.js';

/**
 * The environment a run gets: the runner's, without the INPUT_* copies of the inputs (they hold
 * the tokens), with the tokens under the names issueloop reads.
 */
export function actionEnv(runner: Env, inputs: ActionInputs): Env {
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(runner)) if (!name.startsWith('INPUT_')) env[name] = value;
  // Under both names: a job-wide GH_TOKEN (often `github.token`, for gh steps) would otherwise win
  // over the input, GH_TOKEN being read first as gh reads it.
  if (inputs.githubToken) {
    env.GITHUB_TOKEN = inputs.githubToken;
    env.GH_TOKEN = inputs.githubToken;
  }
  if (inputs.projectsToken) env.ISSUELOOP_PROJECTS_TOKEN = inputs.projectsToken;
  if (inputs.anthropicKey) env.ANTHROPIC_API_KEY = inputs.anthropicKey;
  if (inputs.app) {
    env.ISSUELOOP_APP_ID = inputs.app.id;
    env.ISSUELOOP_APP_PRIVATE_KEY = inputs.app.privateKey;
    if (inputs.app.installationId) env.ISSUELOOP_APP_INSTALLATION_ID = inputs.app.installationId;
  }
  return env;
}

export async function readEvent(env: Env): Promise<ActionEvent> {
  const name = env.GITHUB_EVENT_NAME ?? '';
  const path = env.GITHUB_EVENT_PATH;
  if (!name || !path) {
    throw new UsageError(
      'GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set: this is the GitHub Action; outside Actions run `issueloop run`',
    );
  }
  try {
    return { name, payload: JSON.parse(await readFile(path, 'utf8')) as unknown };
  } catch (err) {
    throw new UsageError(`cannot read the event payload ${path}: ${(err as Error).message}`);
  }
}

/**
 * Whether the actor who applied the label (or gave the command in a comment) may start work: write
 * access, or a bot the workflow lists.
 */
export async function gate(
  base: RunBase,
  actor: Actor,
  inputs: ActionInputs,
  by: 'label' | 'command' = 'label',
): Promise<string | undefined> {
  const did = by === 'label' ? 'the label was applied by' : 'the command was given by';
  if (actor.type === 'Bot') {
    if (inputs.allowedBots.includes(botName(actor.login))) return undefined;
    return `${did} the bot ${actor.login}, which is not listed in the allowed_bots input`;
  }
  const permission = await base.github.trustGate().permission(actor.login);
  if (canWrite(permission)) return undefined;
  return `${did} ${actor.login}, whose permission on the repository is "${permission}"; only users with write, maintain or admin access can start issueloop`;
}

/** Drain mode: no claims once too little of the budget is left for a session, a hard stop at its end. */
export function budgetOptions(
  config: Config,
  budgetMs: number,
  start: number,
): Pick<RunOptions, 'claimUntil'> {
  return { claimUntil: start + Math.max(budgetMs - config.session.max_duration, 0) };
}

/**
 * The run's redactor: every secret of the run's environment and of the runner's own (its GH_TOKEN,
 * which the github_token input replaced). A token minted mid-run (a GitHub App's) is masked on the
 * runner too as it is learnt: the logger's own redactor, which writes the job log, never learns it.
 */
export function runnerRedactor(
  io: Pick<ActionIo, 'env' | 'core'>,
  env: Env,
  redactEnv: readonly string[],
): Redactor {
  const widened = createRedactor([...secretsFromEnv(env, redactEnv), ...secretsFromEnv(io.env, redactEnv)]);
  return Object.assign((text: string, options?: Parameters<Redactor>[1]) => widened(text, options), {
    learn: (secret: string) => {
      learnSecret(widened, secret);
      io.core.setSecret(secret);
    },
  });
}
