import type { ProjectConfig } from '../../config/schema.js';
import { IssueloopError } from '../../core/errors.js';
import type { GitHubClient } from '../client.js';
import { OPTIONAL_PHASES, type ResolvedBoard } from './board-state.js';
import { FIND_PROJECTS, RESOLVE_PROJECT } from './documents.js';

/** Finding the board from configuration: by owner and number, or by exact title. */

interface OwnerNode {
  __typename: string;
  id: string;
  login: string;
  projectV2?: ProjectNode | null;
  projectsV2?: { nodes: Array<{ id: string; number: number; title: string; url: string } | null> };
}

interface ProjectNode {
  id: string;
  number: number;
  title: string;
  url: string;
  items: { totalCount: number };
  field: {
    __typename: string;
    id?: string;
    name?: string;
    options?: Array<{ id: string; name: string; color?: string; description?: string }>;
  } | null;
}

export class BoardConfigError extends IssueloopError {
  constructor(message: string) {
    super('board_not_usable', message);
  }
}

export function projectKey(project: ProjectConfig): string {
  const which = project.number !== undefined ? `#${project.number}` : `title:${project.title}`;
  return `${project.owner}/${which}/${project.status_field}`;
}

function missingOwner(owner: string): BoardConfigError {
  return new BoardConfigError(
    `no GitHub user or organisation named "${owner}" is visible to the token: check project.owner`,
  );
}

async function findNumberByTitle(gh: GitHubClient, project: ProjectConfig, title: string): Promise<number> {
  const data = await gh.call(
    `find the project titled "${title}"`,
    () =>
      gh.projectsGraphql<{ repositoryOwner: OwnerNode | null }>(FIND_PROJECTS, {
        owner: project.owner,
        search: title,
      }),
    'project',
  );
  const owner = data.repositoryOwner;
  if (!owner) throw missingOwner(project.owner);
  // projectsV2(query:) is a text search: only an exact title is the board.
  const exact = (owner.projectsV2?.nodes ?? []).filter((n) => n !== null && n.title === title);
  if (exact.length === 0) {
    throw new BoardConfigError(
      `${project.owner} has no project titled exactly "${title}": create it with \`issueloop board init --create --title "${title}"\`, or set project.number`,
    );
  }
  if (exact.length > 1) {
    const numbers = exact.map((n) => `#${n?.number}`).join(', ');
    throw new BoardConfigError(
      `${project.owner} has ${exact.length} projects titled "${title}" (${numbers}): set project.number to pick one`,
    );
  }
  return (exact[0] as { number: number }).number;
}

/** Resolves the project, its Status field and option ids. Throws GitHubError or BoardConfigError. */
export async function resolveProject(gh: GitHubClient, project: ProjectConfig): Promise<ResolvedBoard> {
  const number = project.number ?? (await findNumberByTitle(gh, project, project.title ?? ''));
  const data = await gh.call(
    `resolve project ${project.owner}#${number}`,
    () =>
      gh.projectsGraphql<{ repositoryOwner: OwnerNode | null }>(RESOLVE_PROJECT, {
        owner: project.owner,
        number,
        field: project.status_field,
      }),
    'project',
  );
  const owner = data.repositoryOwner;
  if (!owner) throw missingOwner(project.owner);
  const node = owner.projectV2;
  if (!node) throw new BoardConfigError(`${project.owner} has no project #${number}: check project.number`);
  const field = node.field;
  if (field?.__typename !== 'ProjectV2SingleSelectField' || !field.id || !field.options) {
    throw new BoardConfigError(
      `project "${node.title}" has no single-select field named "${project.status_field}": check project.status_field (GitHub names it "Status" by default)`,
    );
  }
  return {
    key: projectKey(project),
    projectId: node.id,
    number: node.number,
    title: node.title,
    url: node.url,
    itemCount: node.items.totalCount,
    fieldId: field.id,
    fieldName: field.name ?? project.status_field,
    options: field.options,
  };
}

/** Which configured status names the board lacks, phase by phase. */
export function missingStatuses(
  resolved: ResolvedBoard,
  statuses: ProjectConfig['statuses'],
): Array<{ phase: string; name: string }> {
  const have = new Set(resolved.options.map((o) => o.name));
  return Object.entries(statuses)
    .filter(([phase, name]) => !have.has(name) && !OPTIONAL_PHASES.has(phase))
    .map(([phase, name]) => ({ phase, name }));
}
