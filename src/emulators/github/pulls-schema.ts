/**
 * The pull-request part of the emulator's GraphQL schema, as extensions of the Projects subset
 * (projects-schema.ts builds both into one): a repository's pull requests with their merge state
 * and review threads, and the mutations that resolve and answer threads. As there, every type,
 * field and argument is GitHub's own with the same type (test/sandbox/projects-schema.test.ts
 * holds it to that), and arguments the emulator does not implement are left out.
 */
export const PULLS_SDL = /* GraphQL */ `
scalar GitObjectID

enum MergeableState {
  CONFLICTING
  MERGEABLE
  UNKNOWN
}

enum PullRequestReviewDecision {
  APPROVED
  CHANGES_REQUESTED
  REVIEW_REQUIRED
}

enum PullRequestReviewState {
  APPROVED
  CHANGES_REQUESTED
  COMMENTED
  DISMISSED
  PENDING
}

enum CommentAuthorAssociation {
  COLLABORATOR
  CONTRIBUTOR
  FIRST_TIMER
  FIRST_TIME_CONTRIBUTOR
  MANNEQUIN
  MEMBER
  NONE
  OWNER
}

enum DiffSide {
  LEFT
  RIGHT
}

type Repository implements Node {
  id: ID!
  name: String!
  nameWithOwner: String!
  url: URI!
  owner: RepositoryOwner!
  pullRequest(number: Int!): PullRequest
}

extend type PullRequest {
  body: String!
  closed: Boolean!
  createdAt: DateTime!
  updatedAt: DateTime!
  merged: Boolean!
  mergedAt: DateTime
  mergedBy: Actor
  mergeable: MergeableState!
  isDraft: Boolean!
  headRefName: String!
  headRefOid: GitObjectID!
  baseRefName: String!
  baseRefOid: GitObjectID!
  reviewDecision: PullRequestReviewDecision
  reviewThreads(after: String, before: String, first: Int, last: Int): PullRequestReviewThreadConnection!
  reviews(after: String, before: String, first: Int, last: Int, states: [PullRequestReviewState!]): PullRequestReviewConnection
}

type PullRequestReview implements Node {
  id: ID!
  databaseId: Int
  body: String!
  author: Actor
  authorAssociation: CommentAuthorAssociation!
  state: PullRequestReviewState!
  submittedAt: DateTime
  pullRequest: PullRequest!
}

type PullRequestReviewConnection {
  nodes: [PullRequestReview]
  pageInfo: PageInfo!
  totalCount: Int!
}

type PullRequestReviewThread implements Node {
  id: ID!
  isResolved: Boolean!
  isCollapsed: Boolean!
  isOutdated: Boolean!
  path: String!
  line: Int
  originalLine: Int
  diffSide: DiffSide!
  resolvedBy: User
  viewerCanReply: Boolean!
  viewerCanResolve: Boolean!
  viewerCanUnresolve: Boolean!
  pullRequest: PullRequest!
  comments(after: String, before: String, first: Int, last: Int): PullRequestReviewCommentConnection!
}

type PullRequestReviewThreadConnection {
  nodes: [PullRequestReviewThread]
  pageInfo: PageInfo!
  totalCount: Int!
}

type PullRequestReviewComment implements Node {
  id: ID!
  databaseId: Int
  body: String!
  author: Actor
  authorAssociation: CommentAuthorAssociation!
  diffHunk: String!
  path: String!
  line: Int
  originalLine: Int
  outdated: Boolean!
  createdAt: DateTime!
  updatedAt: DateTime!
  url: URI!
  replyTo: PullRequestReviewComment
  pullRequest: PullRequest!
}

type PullRequestReviewCommentConnection {
  nodes: [PullRequestReviewComment]
  pageInfo: PageInfo!
  totalCount: Int!
}

extend type Query {
  repository(followRenames: Boolean = true, name: String!, owner: String!): Repository
}

input ResolveReviewThreadInput {
  clientMutationId: String
  threadId: ID!
}

type ResolveReviewThreadPayload {
  clientMutationId: String
  thread: PullRequestReviewThread
}

input UnresolveReviewThreadInput {
  clientMutationId: String
  threadId: ID!
}

type UnresolveReviewThreadPayload {
  clientMutationId: String
  thread: PullRequestReviewThread
}

input AddPullRequestReviewThreadReplyInput {
  body: String!
  clientMutationId: String
  pullRequestReviewThreadId: ID!
}

type AddPullRequestReviewThreadReplyPayload {
  clientMutationId: String
  comment: PullRequestReviewComment
}

input MarkPullRequestReadyForReviewInput {
  clientMutationId: String
  pullRequestId: ID!
}

type MarkPullRequestReadyForReviewPayload {
  clientMutationId: String
  pullRequest: PullRequest
}

extend type Mutation {
  markPullRequestReadyForReview(input: MarkPullRequestReadyForReviewInput!): MarkPullRequestReadyForReviewPayload
  addPullRequestReviewThreadReply(input: AddPullRequestReviewThreadReplyInput!): AddPullRequestReviewThreadReplyPayload
  resolveReviewThread(input: ResolveReviewThreadInput!): ResolveReviewThreadPayload
  unresolveReviewThread(input: UnresolveReviewThreadInput!): UnresolveReviewThreadPayload
}
`;
