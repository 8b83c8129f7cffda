import { buildSchema, type GraphQLSchema } from 'graphql';
import { PULLS_SDL } from './pulls-schema.js';

/**
 * The part of GitHub's GraphQL schema the emulator serves: Projects v2 boards, their owners and the
 * issues on them, and who last edited an issue's body (`nodes(ids:)`, `Issue.lastEditedAt`, `editor`). Every type, field and argument here exists in GitHub's published schema with the
 * same type (test/sandbox/projects-schema.test.ts holds it to that), so a document that validates
 * here validates against GitHub too. Arguments GitHub has but the emulator does not implement are
 * left out rather than silently ignored.
 */
export const PROJECTS_SDL = /* GraphQL */ `
scalar URI
scalar DateTime

interface Node {
  id: ID!
}

interface Actor {
  login: String!
  url: URI!
}

interface RepositoryOwner {
  id: ID!
  login: String!
  url: URI!
}

interface ProjectV2Owner {
  id: ID!
  projectV2(number: Int!): ProjectV2
  projectsV2(after: String, first: Int, query: String): ProjectV2Connection!
}

type Organization implements Node & Actor & RepositoryOwner & ProjectV2Owner {
  id: ID!
  login: String!
  url: URI!
  projectV2(number: Int!): ProjectV2
  projectsV2(after: String, first: Int, query: String): ProjectV2Connection!
}

type User implements Node & Actor & RepositoryOwner & ProjectV2Owner {
  id: ID!
  login: String!
  url: URI!
  projectV2(number: Int!): ProjectV2
  projectsV2(after: String, first: Int, query: String): ProjectV2Connection!
}

type Bot implements Node & Actor {
  id: ID!
  login: String!
  url: URI!
}

type PageInfo {
  endCursor: String
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
}

type ProjectV2 implements Node {
  id: ID!
  number: Int!
  title: String!
  url: URI!
  closed: Boolean!
  createdAt: DateTime!
  updatedAt: DateTime!
  items(after: String, first: Int): ProjectV2ItemConnection!
  field(name: String!): ProjectV2FieldConfiguration
  fields(after: String, first: Int): ProjectV2FieldConfigurationConnection!
}

type ProjectV2Connection {
  nodes: [ProjectV2]
  pageInfo: PageInfo!
  totalCount: Int!
}

union ProjectV2FieldConfiguration = ProjectV2SingleSelectField

type ProjectV2FieldConfigurationConnection {
  nodes: [ProjectV2FieldConfiguration]
  pageInfo: PageInfo!
  totalCount: Int!
}

enum ProjectV2SingleSelectFieldOptionColor {
  BLUE
  GRAY
  GREEN
  ORANGE
  PINK
  PURPLE
  RED
  YELLOW
}

type ProjectV2SingleSelectField implements Node {
  id: ID!
  name: String!
  createdAt: DateTime!
  updatedAt: DateTime!
  project: ProjectV2!
  options(names: [String!]): [ProjectV2SingleSelectFieldOption!]!
}

type ProjectV2SingleSelectFieldOption {
  id: String!
  name: String!
  color: ProjectV2SingleSelectFieldOptionColor!
  description: String!
}

enum ProjectV2ItemType {
  ISSUE
  PULL_REQUEST
}

type ProjectV2Item implements Node {
  id: ID!
  type: ProjectV2ItemType!
  isArchived: Boolean!
  createdAt: DateTime!
  updatedAt: DateTime!
  project: ProjectV2!
  content: ProjectV2ItemContent
  fieldValueByName(name: String!): ProjectV2ItemFieldValue
}

type ProjectV2ItemConnection {
  nodes: [ProjectV2Item]
  pageInfo: PageInfo!
  totalCount: Int!
}

union ProjectV2ItemFieldValue = ProjectV2ItemFieldSingleSelectValue

type ProjectV2ItemFieldSingleSelectValue {
  name: String
  optionId: String
  field: ProjectV2FieldConfiguration!
}

union ProjectV2ItemContent = Issue | PullRequest

enum IssueState {
  OPEN
  CLOSED
}

enum PullRequestState {
  OPEN
  CLOSED
  MERGED
}

type Issue implements Node {
  id: ID!
  number: Int!
  title: String!
  url: URI!
  state: IssueState!
  lastEditedAt: DateTime
  editor: Actor
}

type PullRequest implements Node {
  id: ID!
  number: Int!
  title: String!
  url: URI!
  state: PullRequestState!
}

type Query {
  node(id: ID!): Node
  nodes(ids: [ID!]!): [Node]!
  organization(login: String!): Organization
  repositoryOwner(login: String!): RepositoryOwner
  user(login: String!): User
  viewer: User!
}

input AddProjectV2ItemByIdInput {
  clientMutationId: String
  contentId: ID!
  projectId: ID!
}

type AddProjectV2ItemByIdPayload {
  clientMutationId: String
  item: ProjectV2Item
}

input ProjectV2FieldValue {
  singleSelectOptionId: String
}

input UpdateProjectV2ItemFieldValueInput {
  clientMutationId: String
  fieldId: ID!
  itemId: ID!
  projectId: ID!
  value: ProjectV2FieldValue!
}

type UpdateProjectV2ItemFieldValuePayload {
  clientMutationId: String
  projectV2Item: ProjectV2Item
}

input CreateProjectV2Input {
  clientMutationId: String
  ownerId: ID!
  title: String!
}

type CreateProjectV2Payload {
  clientMutationId: String
  projectV2: ProjectV2
}

input ProjectV2SingleSelectFieldOptionInput {
  color: ProjectV2SingleSelectFieldOptionColor!
  description: String!
  name: String!
}

input UpdateProjectV2FieldInput {
  clientMutationId: String
  fieldId: ID!
  name: String
  singleSelectOptions: [ProjectV2SingleSelectFieldOptionInput!]
}

type UpdateProjectV2FieldPayload {
  clientMutationId: String
  projectV2Field: ProjectV2FieldConfiguration
}

type Mutation {
  addProjectV2ItemById(input: AddProjectV2ItemByIdInput!): AddProjectV2ItemByIdPayload
  createProjectV2(input: CreateProjectV2Input!): CreateProjectV2Payload
  updateProjectV2Field(input: UpdateProjectV2FieldInput!): UpdateProjectV2FieldPayload
  updateProjectV2ItemFieldValue(input: UpdateProjectV2ItemFieldValueInput!): UpdateProjectV2ItemFieldValuePayload
}
`;

let cached: GraphQLSchema | undefined;

/** The whole schema the emulator serves: the Projects subset and, extending it, the pull-request part. */
export function projectsSchema(): GraphQLSchema {
  cached ??= buildSchema(PROJECTS_SDL + PULLS_SDL);
  return cached;
}
