import type { AuthorAssociation, RepoRole, TokenKind } from './types.js';

/** The emulator's internal state, kept apart from the JSON shapes the API hands out. */

export interface UserRecord {
  id: number;
  nodeId: string;
  login: string;
  type: 'User' | 'Bot' | 'Organization';
}

export interface TokenRecord {
  login: string;
  kind: TokenKind;
  scopes: string[];
}

export interface LabelRecord {
  id: number;
  nodeId: string;
  name: string;
  color: string;
  description: string | null;
}

export interface PullRecord {
  id: number;
  headRef: string;
  headLabel: string;
  baseRef: string;
  draft: boolean;
}

export interface IssueRecord {
  number: number;
  id: number;
  nodeId: string;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  stateReason: 'completed' | 'not_planned' | 'reopened' | null;
  author: string;
  authorAssociation: AuthorAssociation;
  /** Lower-cased keys into the repository's labels, in the order they were added. */
  labels: string[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** The last edit of the body (GraphQL `lastEditedAt`, `editor`); a title change is a `renamed` event instead. */
  lastEditedAt?: string;
  editor?: string;
  pull?: PullRecord;
}

export interface CommentRecord {
  id: number;
  nodeId: string;
  issueNumber: number;
  author: string;
  authorAssociation: AuthorAssociation;
  body: string;
  createdAt: string;
  updatedAt: string;
}

export interface EventRecord {
  id: number;
  nodeId: string;
  issueNumber: number;
  event: 'labeled' | 'unlabeled' | 'closed' | 'reopened' | 'renamed';
  actor: string;
  label?: { name: string; color: string };
  rename?: { from: string; to: string };
  createdAt: string;
}

export interface OptionRecord {
  id: string;
  name: string;
  color: string;
  description: string;
}

export interface FieldRecord {
  id: string;
  name: string;
  options: OptionRecord[];
  createdAt: string;
  updatedAt: string;
}

export interface ItemRecord {
  id: string;
  contentId: string;
  /** Field id → option id. */
  values: Map<string, string>;
  createdAt: string;
  updatedAt: string;
}

export interface ProjectRecord {
  id: string;
  number: number;
  title: string;
  owner: string;
  closed: boolean;
  createdAt: string;
  updatedAt: string;
  fields: FieldRecord[];
  items: ItemRecord[];
}

export const ROLE_RANK: Record<RepoRole, number> = {
  none: 0,
  read: 1,
  triage: 2,
  write: 3,
  maintain: 4,
  admin: 5,
};
