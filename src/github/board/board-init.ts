import type { ProjectConfig } from '../../config/schema.js';
import type { GitHubClient } from '../client.js';
import { isGitHubError } from '../github-error.js';
import type { Board } from './board.js';
import type { BoardPhase, ResolvedBoard } from './board-state.js';
import { CREATE_PROJECT, OWNER_ID, SET_STATUS_OPTIONS } from './documents.js';
import { BoardConfigError, missingStatuses } from './resolve-project.js';

/**
 * `issueloop board init`: find (or, when asked, create) the board, and make sure its Status field
 * has an option for every phase. GitHub has no "add one option" mutation: replacing the options
 * regenerates every option id and clears the Status of every item, so on a board that already has
 * items this refuses unless forced, and says why.
 */
export interface BoardInitOptions {
  create: boolean;
  force: boolean;
  /** Title for a created project (default: project.title, else "issueloop"). */
  title?: string;
}

export interface BoardInitReport {
  project: { owner: string; number: number; title: string; url: string; items: number };
  created: boolean;
  missing: Array<{ phase: string; name: string }>;
  added: string[];
  /** Why the missing options were not added. */
  refused?: string;
}

const PHASE_COLORS: Readonly<Record<BoardPhase, string>> = {
  queued: 'GRAY',
  working: 'YELLOW',
  review: 'BLUE',
  done: 'GREEN',
  blocked: 'RED',
  plan_review: 'PURPLE',
};

async function createProject(gh: GitHubClient, owner: string, title: string): Promise<number> {
  const found = await gh.call(
    `look up ${owner}`,
    () => gh.projectsGraphql<{ repositoryOwner: { id: string } | null }>(OWNER_ID, { owner }),
    'project',
  );
  if (!found.repositoryOwner) {
    throw new BoardConfigError(
      `no GitHub user or organisation named "${owner}": check project.owner or --owner`,
    );
  }
  const created = await gh.call(
    `create project "${title}"`,
    () =>
      gh.projectsGraphql<{ createProjectV2: { projectV2: { number: number } } }>(CREATE_PROJECT, {
        owner: found.repositoryOwner?.id,
        title,
      }),
    'project',
  );
  return created.createProjectV2.projectV2.number;
}

function isMissingProject(err: unknown): boolean {
  // By title: our own "has no project" error; by number: GitHub's NOT_FOUND for projectV2(number:).
  if (err instanceof BoardConfigError) return /has no project/.test(err.message);
  return isGitHubError(err, 'not_found') && /ProjectV2/.test(err.message);
}

export async function initBoard(
  gh: GitHubClient,
  project: ProjectConfig,
  openBoardFor: (project: ProjectConfig) => Promise<Board>,
  options: BoardInitOptions,
): Promise<BoardInitReport> {
  let config = project;
  let board = await openBoardFor(config);
  let created = false;
  let resolved: ResolvedBoard;
  try {
    resolved = await board.resolve({ refresh: true });
  } catch (err) {
    if (!options.create || !isMissingProject(err)) throw err;
    const title = options.title ?? project.title ?? 'issueloop';
    const number = await createProject(gh, project.owner, title);
    created = true;
    config = { ...project, number, title };
    board = await openBoardFor(config);
    resolved = await board.resolve({ refresh: true });
  }
  const missing = missingStatuses(resolved, config.statuses);
  const report: BoardInitReport = {
    project: {
      owner: config.owner,
      number: resolved.number,
      title: resolved.title,
      url: resolved.url,
      items: resolved.itemCount,
    },
    created,
    missing,
    added: [],
  };
  if (missing.length === 0) return report;
  if (resolved.itemCount > 0 && !options.force) {
    report.refused = `adding options replaces all of the ${resolved.fieldName} field's options: GitHub gives every option a new id and clears the ${resolved.fieldName} of all ${resolved.itemCount} items on the board. Add the missing options by hand in the project's settings, or run again with --force to accept that`;
    return report;
  }
  const options2 = [
    ...resolved.options.map((o) => ({
      name: o.name,
      color: o.color ?? 'GRAY',
      description: o.description ?? '',
    })),
    ...missing.map((m) => ({
      name: m.name,
      color: PHASE_COLORS[m.phase as BoardPhase] ?? 'GRAY',
      description: '',
    })),
  ];
  await gh.call(
    `add status options to "${resolved.title}"`,
    () => gh.projectsGraphql(SET_STATUS_OPTIONS, { field: resolved.fieldId, options: options2 }),
    'project',
  );
  // Every option id changed: resolve again, and the stored item ids start over.
  await board.resolve({ refresh: true });
  report.added = missing.map((m) => m.name);
  return report;
}
