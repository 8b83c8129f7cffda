import { createIdSource, type IdSource, isoSeconds } from './ids.js';
import { labelRegistry } from './labels-state.js';
import { createLifecycle, type Lifecycle } from './lifecycle-state.js';
import type {
  CommentRecord,
  EventRecord,
  IssueRecord,
  LabelRecord,
  ProjectRecord,
  PullRecord,
  ReactionRecord,
  TokenRecord,
  UserRecord,
} from './records.js';
import type { AuthorAssociation, RepoRole } from './types.js';

export interface StoreOptions {
  owner: string;
  ownerType: 'Organization' | 'User';
  repo: string;
  private: boolean;
  now: () => number;
  /** The bare repository standing for GitHub's copy, if any. */
  origin?: string;
}

/** Everything the emulated repository holds, with the few rules every route shares. */
export interface Store {
  readonly owner: UserRecord;
  readonly repo: { id: number; nodeId: string; name: string; private: boolean };
  readonly ids: IdSource;
  readonly tokens: Map<string, TokenRecord>;
  /** The token's record while GitHub accepts it; an expired token is as unknown as a made-up one. */
  liveToken(token: string): TokenRecord | undefined;
  readonly issues: Map<number, IssueRecord>;
  readonly comments: CommentRecord[];
  readonly reactions: ReactionRecord[];
  readonly events: EventRecord[];
  readonly projects: ProjectRecord[];
  readonly lifecycle: Lifecycle;
  now(): number;
  timestamp(): string;
  findUser(login: string): UserRecord | undefined;
  userByNodeId(nodeId: string): UserRecord | undefined;
  ensureUser(login: string, type?: UserRecord['type']): UserRecord;
  setRole(login: string, role: RepoRole): void;
  roleOf(login: string): RepoRole;
  association(login: string): AuthorAssociation;
  findLabel(name: string): LabelRecord | undefined;
  ensureLabel(name: string, color?: string, description?: string | null): LabelRecord;
  allLabels(): LabelRecord[];
  /** Issues and pull requests share one number sequence, as on GitHub. */
  createIssue(seed: NewIssue): IssueRecord;
  /** Adds a label (creating it on the repository like GitHub does); false when already there. */
  labelIssue(issue: IssueRecord, name: string, actor: string, at?: string): boolean;
  unlabelIssue(issue: IssueRecord, name: string, actor: string): boolean;
  /**
   * Edits as GitHub records them: a new title is a `renamed` event by `actor`; a new body sets the
   * issue's `lastEditedAt` and `editor`. Either moves `updated_at`.
   */
  editIssue(issue: IssueRecord, changes: { title?: string; body?: string | null }, actor: string): void;
  setIssueState(issue: IssueRecord, state: 'open' | 'closed', actor: string, reason?: string): void;
  issueByNodeId(nodeId: string): IssueRecord | undefined;
}

export interface NewIssue {
  title: string;
  body: string | null;
  author: string;
  authorAssociation?: AuthorAssociation;
  createdAt?: string;
  pull?: Omit<PullRecord, 'id'>;
}

export { DEFAULT_LABEL_COLOR } from './labels-state.js';

export function createStore(options: StoreOptions): Store {
  const ids = createIdSource();
  const users = new Map<string, UserRecord>();
  const roles = new Map<string, RepoRole>();
  const issues = new Map<number, IssueRecord>();
  const events: EventRecord[] = [];
  const tokens = new Map<string, TokenRecord>();

  const timestamp = () => isoSeconds(options.now());

  function ensureUser(login: string, type: UserRecord['type'] = 'User'): UserRecord {
    const existing = users.get(login.toLowerCase());
    if (existing) return existing;
    const id = ids.next('user');
    const prefix = type === 'Organization' ? 'O' : type === 'Bot' ? 'BOT' : 'U';
    const user: UserRecord = { id, nodeId: ids.node(prefix, `user:${id}`), login, type };
    users.set(login.toLowerCase(), user);
    return user;
  }

  // GitHub gives the first user id 1 to whoever comes first; the default bot's rate-limit message
  // then reads "user ID 1" like the documentation's examples.
  ensureUser('issueloop-bot');
  const owner = ensureUser(options.owner, options.ownerType);
  const repoId = ids.next('repo');

  const { roleOf, association } = accessRules(roles, owner.login, options);

  const { findLabel, ensureLabel, allLabels } = labelRegistry(ids);

  function recordEvent(
    issue: IssueRecord,
    event: EventRecord['event'],
    actor: string,
    extra: Pick<EventRecord, 'label' | 'rename'> & { createdAt?: string } = {},
  ) {
    const id = ids.next('event');
    events.push({
      id,
      nodeId: ids.node('LE', `event:${id}`),
      issueNumber: issue.number,
      event,
      actor: ensureUser(actor).login,
      ...(extra.label ? { label: extra.label } : {}),
      ...(extra.rename ? { rename: extra.rename } : {}),
      createdAt: extra.createdAt ?? timestamp(),
    });
  }

  return {
    owner,
    repo: {
      id: repoId,
      nodeId: ids.node('R', `repo:${repoId}`),
      name: options.repo,
      private: options.private,
    },
    ids,
    tokens,
    liveToken(token) {
      const record = tokens.get(token);
      if (!record) return undefined;
      return record.expiresAt !== undefined && options.now() >= record.expiresAt ? undefined : record;
    },
    issues,
    comments: [],
    reactions: [],
    events,
    projects: [],
    lifecycle: createLifecycle(options.origin),
    now: options.now,
    timestamp,
    findUser: (login) => users.get(login.toLowerCase()),
    userByNodeId: (nodeId) => [...users.values()].find((u) => u.nodeId === nodeId),
    ensureUser,
    setRole: (login, role) => {
      ensureUser(login);
      roles.set(login.toLowerCase(), role);
    },
    roleOf,
    association,
    findLabel,
    ensureLabel,
    allLabels,
    ...issueOperations({
      ids,
      issues,
      timestamp,
      ensureUser,
      association,
      ensureLabel,
      findLabel,
      recordEvent,
    }),
    issueByNodeId: (nodeId) => [...issues.values()].find((i) => i.nodeId === nodeId),
  };
}

type IssueOperations = Pick<
  Store,
  'createIssue' | 'labelIssue' | 'unlabelIssue' | 'editIssue' | 'setIssueState'
>;

/** Issues as GitHub changes them: numbered in order, each label, rename and close an event. */
function issueOperations(store: {
  ids: ReturnType<typeof createIdSource>;
  issues: Map<number, IssueRecord>;
  timestamp: () => string;
  ensureUser: Store['ensureUser'];
  association: Store['association'];
  ensureLabel: Store['ensureLabel'];
  findLabel: Store['findLabel'];
  recordEvent(
    issue: IssueRecord,
    event: EventRecord['event'],
    actor: string,
    extra?: Pick<EventRecord, 'label' | 'rename'> & { createdAt?: string },
  ): void;
}): IssueOperations {
  const { ids, issues, timestamp, ensureUser, association, ensureLabel, findLabel, recordEvent } = store;
  let lastNumber = 0;
  return {
    createIssue(seed) {
      lastNumber += 1;
      const author = ensureUser(seed.author).login;
      const id = ids.next('issue');
      const at = seed.createdAt ?? timestamp();
      const issue: IssueRecord = {
        number: lastNumber,
        id,
        nodeId: ids.node(seed.pull ? 'PR' : 'I', `issue:${id}`),
        title: seed.title,
        body: seed.body,
        state: 'open',
        stateReason: null,
        author,
        authorAssociation: seed.authorAssociation ?? association(author),
        labels: [],
        createdAt: at,
        updatedAt: at,
        closedAt: null,
        ...(seed.pull ? { pull: { id: ids.next('pull'), ...seed.pull } } : {}),
      };
      issues.set(issue.number, issue);
      return issue;
    },
    labelIssue(issue, name, actor, at) {
      const label = ensureLabel(name);
      const key = label.name.toLowerCase();
      if (issue.labels.includes(key)) return false;
      issue.labels.push(key);
      const createdAt = at ?? timestamp();
      recordEvent(issue, 'labeled', actor, { label: { name: label.name, color: label.color }, createdAt });
      if (createdAt > issue.updatedAt) issue.updatedAt = createdAt;
      return true;
    },
    unlabelIssue(issue, name, actor) {
      const label = findLabel(name);
      const key = name.toLowerCase();
      if (!label || !issue.labels.includes(key)) return false;
      issue.labels = issue.labels.filter((l) => l !== key);
      recordEvent(issue, 'unlabeled', actor, { label: { name: label.name, color: label.color } });
      issue.updatedAt = timestamp();
      return true;
    },
    editIssue(issue, changes, actor) {
      const editor = ensureUser(actor).login;
      if (changes.title !== undefined && changes.title !== issue.title) {
        recordEvent(issue, 'renamed', editor, { rename: { from: issue.title, to: changes.title } });
        issue.title = changes.title;
        issue.updatedAt = timestamp();
      }
      if (changes.body !== undefined && changes.body !== issue.body) {
        issue.body = changes.body;
        issue.updatedAt = timestamp();
        issue.lastEditedAt = issue.updatedAt;
        issue.editor = editor;
      }
    },
    setIssueState(issue, state, actor, reason) {
      if (issue.state === state) return;
      issue.state = state;
      issue.updatedAt = timestamp();
      issue.closedAt = state === 'closed' ? issue.updatedAt : null;
      issue.stateReason =
        state === 'closed' ? (reason === 'not_planned' ? 'not_planned' : 'completed') : 'reopened';
      recordEvent(issue, state === 'closed' ? 'closed' : 'reopened', actor);
    },
  };
}

/** Who may do what in the repository, and how GitHub labels an author's association with it. */
function accessRules(
  roles: ReadonlyMap<string, RepoRole>,
  ownerLogin: string,
  options: Pick<StoreOptions, 'ownerType' | 'private'>,
): { roleOf(login: string): RepoRole; association(login: string): AuthorAssociation } {
  function roleOf(login: string): RepoRole {
    const explicit = roles.get(login.toLowerCase());
    if (explicit) return explicit;
    if (options.ownerType === 'User' && login.toLowerCase() === ownerLogin.toLowerCase()) return 'admin';
    return options.private ? 'none' : 'read';
  }

  function association(login: string): AuthorAssociation {
    if (login.toLowerCase() === ownerLogin.toLowerCase()) return 'OWNER';
    const role = roles.get(login.toLowerCase());
    // The emulator models repository collaborators, not organization membership.
    if (role && role !== 'none') return 'COLLABORATOR';
    return 'NONE';
  }
  return { roleOf, association };
}
