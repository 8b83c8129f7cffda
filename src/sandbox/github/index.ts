export { createGitHubEmulator, DEFAULT_LOGIN, DEFAULT_TOKEN } from './create-emulator.js';
export { PROJECTS_SDL, projectsSchema } from './projects-schema.js';
export type {
  AuthorAssociation,
  CommentJson,
  EmulatorRequest,
  EventJson,
  GitHubEmulator,
  GitHubEmulatorOptions,
  GraphqlFault,
  IssueJson,
  LabelJson,
  ListeningEmulator,
  ProjectSnapshot,
  PullJson,
  RepoRole,
  RestFault,
  SeedComment,
  SeedIssue,
  SeedProject,
  TokenKind,
  TokenOptions,
  UserJson,
} from './types.js';
