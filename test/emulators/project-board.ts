import { clockedEmulator, DOCUMENTS, graphql } from './emulator-fixtures.js';

export interface Option {
  id: string;
  name: string;
}

export interface Resolved {
  data: {
    repositoryOwner: {
      __typename: string;
      id: string;
      login: string;
      projectV2: {
        id: string;
        number: number;
        title: string;
        url: string;
        items: { totalCount: number };
        field: { __typename: string; id: string; name: string; options: Option[] } | null;
      } | null;
    } | null;
  };
  errors?: Array<Record<string, unknown>>;
}

/** The 1-based column GitHub reports for the first occurrence of `text` in a one-line document. */
export const column = (document: string, text: string) => document.indexOf(text) + 1;

/** An emulator with project 7 (default Status options) and one issue not yet on it. */
export function board() {
  const { emulator } = clockedEmulator();
  const project = emulator.addProject({ title: 'Backlog', number: 7 });
  const issue = emulator.addIssue({ title: 'Fix it', author: 'alice' });
  const contentId = emulator.issue(issue)?.node_id ?? '';
  const resolve = async () =>
    (
      await graphql<Resolved>(emulator, DOCUMENTS.ResolveProject, {
        owner: 'octo-org',
        number: 7,
        field: 'Status',
      })
    ).json;
  return { emulator, project, issue, contentId, resolve };
}
