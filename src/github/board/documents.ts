import { gql } from '../gql.js';

/** The Projects v2 operations issueloop sends. Variables avoid the names @octokit/graphql reserves. */

export const RESOLVE_PROJECT = gql`
  query ResolveProject($owner: String!, $number: Int!, $field: String!) {
    repositoryOwner(login: $owner) {
      __typename
      id
      login
      ... on ProjectV2Owner {
        projectV2(number: $number) {
          id
          number
          title
          url
          items(first: 1) { totalCount }
          field(name: $field) {
            __typename
            ... on ProjectV2SingleSelectField { id name options { id name color description } }
          }
        }
      }
    }
  }
`;

export const FIND_PROJECTS = gql`
  query FindProjects($owner: String!, $search: String!) {
    repositoryOwner(login: $owner) {
      __typename
      id
      login
      ... on ProjectV2Owner {
        projectsV2(first: 20, query: $search) { nodes { id number title url } }
      }
    }
  }
`;

export const OWNER_ID = gql`
  query Owner($owner: String!) {
    repositoryOwner(login: $owner) { __typename id login }
  }
`;

export const ADD_ITEM = gql`
  mutation AddItem($project: ID!, $content: ID!) {
    addProjectV2ItemById(input: { projectId: $project, contentId: $content }) { item { id } }
  }
`;

export const SET_STATUS = gql`
  mutation SetStatus($project: ID!, $item: ID!, $field: ID!, $option: String!) {
    updateProjectV2ItemFieldValue(
      input: { projectId: $project, itemId: $item, fieldId: $field, value: { singleSelectOptionId: $option } }
    ) { projectV2Item { id } }
  }
`;

export const CREATE_PROJECT = gql`
  mutation CreateProject($owner: ID!, $title: String!) {
    createProjectV2(input: { ownerId: $owner, title: $title }) { projectV2 { id number title url } }
  }
`;

export const SET_STATUS_OPTIONS = gql`
  mutation SetStatusOptions($field: ID!, $options: [ProjectV2SingleSelectFieldOptionInput!]!) {
    updateProjectV2Field(input: { fieldId: $field, singleSelectOptions: $options }) {
      projectV2Field { ... on ProjectV2SingleSelectField { id name options { id name color description } } }
    }
  }
`;
