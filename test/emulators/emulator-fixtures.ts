import { Octokit } from '@octokit/rest';
import {
  createGitHubEmulator,
  DEFAULT_TOKEN,
  type GitHubEmulator,
  type GitHubEmulatorOptions,
} from '../../src/emulators/github/index.js';
import { ISSUE_BODY_EDITS } from '../../src/github/issue-edits.js';

export const BASE = 'https://api.github.test';
export const REPO = '/repos/octo-org/widgets';
export const START = Date.UTC(2026, 10, 21, 12, 30, 0);

/** The documents the GitHub adapter sends, exactly as the brief fixes them. */
export const DOCUMENTS = {
  ResolveProject: `query ResolveProject($owner:String!,$number:Int!,$field:String!){ repositoryOwner(login:$owner){ __typename id login ... on ProjectV2Owner { projectV2(number:$number){ id number title url items(first:1){ totalCount } field(name:$field){ __typename ... on ProjectV2SingleSelectField { id name options { id name } } } } } } }`,
  FindProjects: `query FindProjects($owner:String!,$query:String!){ repositoryOwner(login:$owner){ __typename id login ... on ProjectV2Owner { projectsV2(first:20, query:$query){ nodes { id number title url } } } } }`,
  Owner: `query Owner($owner:String!){ repositoryOwner(login:$owner){ __typename id login } }`,
  AddItem: `mutation AddItem($project:ID!,$content:ID!){ addProjectV2ItemById(input:{projectId:$project, contentId:$content}){ item { id } } }`,
  SetStatus: `mutation SetStatus($project:ID!,$item:ID!,$field:ID!,$option:String!){ updateProjectV2ItemFieldValue(input:{projectId:$project, itemId:$item, fieldId:$field, value:{singleSelectOptionId:$option}}){ projectV2Item { id } } }`,
  CreateProject: `mutation CreateProject($owner:ID!,$title:String!){ createProjectV2(input:{ownerId:$owner, title:$title}){ projectV2 { id number title url } } }`,
  IssueBodyEdits: ISSUE_BODY_EDITS,
  SetStatusOptions: `mutation SetStatusOptions($field:ID!,$options:[ProjectV2SingleSelectFieldOptionInput!]!){ updateProjectV2Field(input:{fieldId:$field, singleSelectOptions:$options}){ projectV2Field { ... on ProjectV2SingleSelectField { id name options { id name } } } } }`,
} as const;

export interface Clocked {
  emulator: GitHubEmulator;
  /** Moves the emulator's clock forward. */
  advance(ms: number): void;
}

export function clockedEmulator(options: GitHubEmulatorOptions = {}): Clocked {
  let now = START;
  const emulator = createGitHubEmulator({ baseUrl: BASE, now: () => now, ...options });
  return {
    emulator,
    advance: (ms) => {
      now += ms;
    },
  };
}

export function octokit(emulator: GitHubEmulator, token = DEFAULT_TOKEN): Octokit {
  const quiet = () => undefined;
  return new Octokit({
    auth: token,
    baseUrl: emulator.baseUrl,
    request: { fetch: emulator.fetch },
    log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
}

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  json: T;
}

/** A raw call through the emulator's fetch, with the default token unless headers say otherwise. */
export async function call<T = unknown>(
  emulator: GitHubEmulator,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const response = await emulator.fetch(`${emulator.baseUrl}${path}`, {
    method,
    headers: { authorization: `token ${DEFAULT_TOKEN}`, ...options.headers },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: (text ? JSON.parse(text) : undefined) as T,
  };
}

export async function graphql<T = unknown>(
  emulator: GitHubEmulator,
  query: string,
  variables: Record<string, unknown> = {},
  token = DEFAULT_TOKEN,
): Promise<Answer<T>> {
  return call<T>(emulator, 'POST', '/graphql', {
    body: { query, variables },
    headers: { authorization: `bearer ${token}` },
  });
}
