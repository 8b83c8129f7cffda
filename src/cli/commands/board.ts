import { join } from 'node:path';
import { type Config, type ProjectConfig, ProjectSchema } from '../../config/schema.js';
import { UsageError } from '../../core/errors.js';
import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import { terminalJson } from '../../core/terminal-text.js';
import { BOARD_FILE } from '../../github/adapter.js';
import { openBoard } from '../../github/board/board.js';
import { type BoardInitReport, initBoard } from '../../github/board/board-init.js';
import { appConfigured } from '../../run/app-token.js';
import { EXIT, type ExitCode } from '../../run/exit-codes.js';
import { buildGitHubClient, repoRef, stateDirOf } from '../../run/github-deps.js';
import type { Env } from '../../run/secrets.js';

export interface BoardInitFlags {
  create?: boolean;
  force?: boolean;
  title?: string;
  owner?: string;
  json?: boolean;
}

/** The board to initialise: the configured one, with --owner / --title taking precedence. */
export function boardProject(config: Config, flags: BoardInitFlags): ProjectConfig {
  const owner = flags.owner ?? config.project?.owner;
  const number = flags.title === undefined ? config.project?.number : undefined;
  const title = flags.title ?? config.project?.title;
  if (!owner || (number === undefined && title === undefined)) {
    throw new UsageError(
      'no board configured: set project.owner and project.number (or project.title) in issueloop.config.yaml, or pass --owner <login> --title <title>',
    );
  }
  const parsed = ProjectSchema.safeParse({
    ...(config.project ?? {}),
    owner,
    ...(number === undefined ? { number: undefined } : { number }),
    ...(title === undefined ? {} : { title }),
  });
  if (!parsed.success) {
    throw new UsageError(`--owner ${JSON.stringify(owner)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

export function renderBoardInit(report: BoardInitReport): string {
  const { project } = report;
  const lines = [
    `${report.created ? 'created' : 'found'} project "${project.title}" (#${project.number}) of ${project.owner}: ${project.url}`,
    `items on the board: ${project.items}`,
  ];
  if (report.missing.length === 0) lines.push('status options: all present');
  else
    lines.push(`missing status options: ${report.missing.map((m) => `${m.name} (${m.phase})`).join(', ')}`);
  if (report.added.length > 0) lines.push(`added status options: ${report.added.join(', ')}`);
  if (report.refused) lines.push(`not changed: ${report.refused}`);
  if (report.created) {
    lines.push(
      `set project.number: ${project.number} (and project.owner: ${project.owner}) in issueloop.config.yaml`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export interface BoardInitInput {
  env: Env;
  cwd: string;
  config: Config;
  flags: BoardInitFlags;
  log: Log;
  redact: Redactor;
  version: string;
  fetch?: typeof fetch;
}

export async function runBoardInit(input: BoardInitInput): Promise<{ output: string; exitCode: ExitCode }> {
  const project = boardProject(input.config, input.flags);
  // An App's installation is looked up for a repository: a board alone names none.
  if (!input.config.repo && appConfigured(input.env, input.config)) {
    throw new UsageError(
      'board init with a GitHub App needs the repository the App is installed on, to find its installation: pass -R owner/name, set `repo:` or GH_REPO, or run it in a clone of the repository',
    );
  }
  const gh = buildGitHubClient({
    env: input.env,
    config: input.config,
    cwd: input.cwd,
    log: input.log,
    redact: input.redact,
    version: input.version,
    ...(input.fetch ? { fetch: input.fetch } : {}),
    repoFallback: repoRef(`${project.owner}/-`),
  });
  const file = join(stateDirOf(input.config, input.cwd), BOARD_FILE);
  const report = await initBoard(gh, project, (p) => openBoard(gh, { project: p, file }), {
    create: input.flags.create === true,
    force: input.flags.force === true,
    ...(input.flags.title ? { title: input.flags.title } : {}),
  });
  const output = input.flags.json ? `${terminalJson(report, undefined, 2)}\n` : renderBoardInit(report);
  return { output, exitCode: report.refused ? EXIT.failure : EXIT.ok };
}
