export { ACTIONS_APP_ID, emulatedAppId } from './checks-serialize.js';
export { createGitHubEmulator, DEFAULT_LOGIN, DEFAULT_TOKEN } from './create-emulator.js';
export { PROJECTS_SDL, projectsSchema } from './projects-schema.js';
export { PULLS_SDL } from './pulls-schema.js';
export { closingReferences, liveMentions, renderedText } from './rendered-text.js';
export type {
  AuthorAssociation,
  CheckConclusion,
  CheckRunChanges,
  CheckStatus,
  CommentJson,
  EmulatorRequest,
  EventJson,
  GitHubEmulator,
  GitHubEmulatorOptions,
  GraphqlFault,
  IssueJson,
  LabelJson,
  ListeningEmulator,
  MergeMethod,
  ProjectSnapshot,
  PullJson,
  PullSimpleJson,
  RepoRole,
  RestFault,
  ReviewState,
  SeedAnnotation,
  SeedCheckRun,
  SeedComment,
  SeedIssue,
  SeedProject,
  SeedRequiredCheck,
  SeedReview,
  SeedReviewComment,
  SeedStatus,
  TokenKind,
  TokenOptions,
  UserJson,
} from './types.js';
