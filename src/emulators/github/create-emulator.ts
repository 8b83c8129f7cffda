import { createAppRegistry } from './app-state.js';
import { createFaults } from './faults.js';
import { serveGitOverHttp } from './git-http.js';
import { createHandler } from './handler.js';
import { createProject, findProject, projectSnapshot } from './projects-state.js';
import { createRateLimiter } from './rate-limit.js';
import { hasScopes, type IssueRecord } from './records.js';
import type { EmulatorRequest, GitRequest } from './request-log.js';
import { accountRoutes } from './routes-account.js';
import { checkRoutes } from './routes-checks.js';
import { commentRoutes, createComment } from './routes-comments.js';
import { addBlockedBy, dependencyRoutes } from './routes-dependencies.js';
import { issueRoutes } from './routes-issues.js';
import { labelRoutes } from './routes-labels.js';
import { protectionRoutes } from './routes-protection.js';
import { pullRoutes } from './routes-pulls.js';
import { reactionRoutes } from './routes-reactions.js';
import { reviewRoutes } from './routes-reviews.js';
import { lifecycleSeeding } from './seed-lifecycle.js';
import { commentJson, htmlBaseFor, issueJson, pullJson, type Urls } from './serialize.js';
import { createStore, type Store } from './store.js';
import { createEmulatorFetch, listenOnLoopback } from './transport.js';
import type { GitHubEmulator, GitHubEmulatorOptions } from './types.js';

export const DEFAULT_TOKEN = 'ghp_emulator';
export const DEFAULT_LOGIN = 'issueloop-bot';
const DEFAULT_LIMIT = 5000;

function issueOf(store: Store, number: number): IssueRecord {
  const issue = store.issues.get(number);
  if (!issue) throw new Error(`emulator: no issue #${number}`);
  return issue;
}

type Seeding = Pick<
  GitHubEmulator,
  | 'addToken'
  | 'revokeToken'
  | 'addUser'
  | 'setPermission'
  | 'addLabel'
  | 'addIssue'
  | 'labelIssue'
  | 'unlabelIssue'
  | 'editIssue'
  | 'addComment'
  | 'addProject'
  | 'blockIssue'
>;

/** What a test sets up, as GitHub would have it: tokens, users, permissions, labels, issues, comments, projects. */
function seeding(store: Store): Seeding {
  const requireIssue = (number: number) => issueOf(store, number);
  return {
    addToken(token, { login, kind, scopes = [], clientId, expiresAt }) {
      store.ensureUser(login, kind === 'installation' ? 'Bot' : 'User');
      store.tokens.set(token, {
        login,
        kind,
        scopes: hasScopes({ kind }) ? [...scopes] : [],
        ...(clientId !== undefined ? { clientId } : {}),
        ...(expiresAt !== undefined ? { expiresAt: Date.parse(expiresAt) } : {}),
      });
    },
    revokeToken: (token) => void store.tokens.delete(token),
    addUser: (login, { type = 'User' } = {}) => void store.ensureUser(login, type),
    setPermission: (login, role) => store.setRole(login, role),
    addLabel: (name, color) => void store.ensureLabel(name, color),
    addIssue(seed) {
      const issue = store.createIssue({
        title: seed.title,
        body: seed.body ?? null,
        author: seed.author,
        ...(seed.authorAssociation ? { authorAssociation: seed.authorAssociation } : {}),
        ...(seed.createdAt ? { createdAt: seed.createdAt } : {}),
      });
      for (const label of seed.labels ?? []) {
        store.labelIssue(issue, label, seed.labeledBy ?? seed.author, issue.createdAt);
      }
      return issue.number;
    },
    labelIssue: (number, label, actor) => void store.labelIssue(requireIssue(number), label, actor),
    unlabelIssue: (number, label, actor) => void store.unlabelIssue(requireIssue(number), label, actor),
    editIssue: (number, changes, actor) => store.editIssue(requireIssue(number), changes, actor),
    blockIssue: (number, blocker) => addBlockedBy(requireIssue(number), requireIssue(blocker)),
    addComment(number, { author, body, authorAssociation }) {
      const comment = createComment(store, requireIssue(number).number, author, body, authorAssociation);
      if (!comment) throw new Error(`emulator: no issue #${number}`);
      return comment.id;
    },
    addProject({ title, number, statusOptions, owner }) {
      const project = createProject(store, {
        owner: owner ?? store.owner.login,
        title,
        ...(number === undefined ? {} : { number }),
        ...(statusOptions ? { statusOptions } : {}),
      });
      return { id: project.id, number: project.number };
    },
  };
}

/**
 * An in-process GitHub for one repository: the REST routes and the GraphQL subset (Projects v2, who
 * last edited an issue, pull requests and their review threads) that issueloop uses, a pull
 * request's life included (real commits from `origin`, checks, statuses, reviews, merging), with
 * GitHub's shapes, ETags, pagination, rate limits and error bodies. Everything is deterministic
 * given `now` (and `origin`'s commits), so tests can assert exact request logs.
 */
export function createGitHubEmulator(options: GitHubEmulatorOptions = {}): GitHubEmulator {
  const base = new URL(options.baseUrl ?? 'https://api.github.test');
  const basePath = base.pathname.replace(/\/+$/, '');
  const baseUrl = `${base.origin}${basePath}`;
  const now = options.now ?? Date.now;
  const store = createStore({
    owner: options.owner ?? 'octo-org',
    ownerType: options.ownerType ?? 'Organization',
    repo: options.repo ?? 'widgets',
    private: options.private ?? false,
    now,
    ...(options.origin === undefined ? {} : { origin: options.origin }),
  });
  const rate = createRateLimiter(
    { core: options.rateLimit?.core ?? DEFAULT_LIMIT, graphql: options.rateLimit?.graphql ?? DEFAULT_LIMIT },
    now,
  );
  const faults = createFaults();
  const apps = createAppRegistry(store);
  const log: EmulatorRequest[] = [];
  const gitLog: GitRequest[] = [];
  const handle = createHandler({
    store,
    rate,
    anonymousRate: createRateLimiter({ core: 60, graphql: 0 }, now),
    faults,
    apps,
    routes: [
      ...accountRoutes,
      ...reactionRoutes,
      ...issueRoutes,
      ...dependencyRoutes,
      ...commentRoutes,
      ...labelRoutes,
      ...pullRoutes,
      ...reviewRoutes,
      ...checkRoutes,
      ...protectionRoutes,
    ],
    log,
    basePath,
  });
  const urls: Urls = { api: baseUrl, html: htmlBaseFor(base.origin) };

  store.tokens.set(DEFAULT_TOKEN, { login: DEFAULT_LOGIN, kind: 'classic', scopes: ['repo', 'project'] });
  store.setRole(DEFAULT_LOGIN, 'write');

  const requireIssue = (number: number) => issueOf(store, number);

  return {
    owner: store.owner.login,
    repo: store.repo.name,
    baseUrl,
    fetch: createEmulatorFetch(handle, base),
    listen: () => listenOnLoopback(handle, basePath),
    serveGit: () => serveGitOverHttp(store, gitLog),
    gitRequests: gitLog,

    ...seeding(store),
    ...lifecycleSeeding(store, DEFAULT_LOGIN),
    addApp(seed) {
      const app = apps.add(seed);
      const bot = store.ensureUser(app.botLogin, 'Bot');
      return { botLogin: bot.login, botId: bot.id };
    },
    suspendInstallation: (id, suspended = true) => apps.setSuspended(id, suspended),

    requests: log,
    chargedCount: () => log.filter((r) => r.charged).length,
    resetRequests: () => {
      log.length = 0;
    },
    issue: (number) => {
      const issue = store.issues.get(number);
      return issue ? issueJson(store, issue, urls) : undefined;
    },
    comments: (number) =>
      store.comments.filter((c) => c.issueNumber === number).map((c) => commentJson(store, c, urls)),
    reactions: (commentId) =>
      store.reactions
        .filter((r) => r.commentId === commentId)
        .map((r) => ({ user: r.user, content: r.content })),
    pulls: () => [...store.issues.values()].filter((i) => i.pull).map((i) => pullJson(store, i, urls)),
    labelsOf: (number) => requireIssue(number).labels.map((key) => store.findLabel(key)?.name ?? key),
    repoLabels: () =>
      store.allLabels().map((l) => ({ name: l.name, color: l.color, description: l.description })),
    project: (number, owner) => {
      const project = findProject(store, owner ?? store.owner.login, number);
      return project ? projectSnapshot(store, project, urls.html) : undefined;
    },

    failNext: (fault) => faults.addRest(fault),
    failGraphql: (fault) => faults.addGraphql(fault),
    clearFaults: () => faults.clear(),
  };
}
