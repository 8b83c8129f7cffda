import { ROLE_RANK } from './records.js';
import { errorReply, notFound, ok } from './replies.js';
import type { Route } from './router.js';
import { userJson } from './serialize.js';
import type { RepoRole } from './types.js';

export const INTEGRATION_FORBIDDEN = 'Resource not accessible by integration';

/** The coarse permission GitHub reports next to the precise role: maintain reads as write, triage as read. */
const COARSE: Record<RepoRole, 'admin' | 'write' | 'read' | 'none'> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: 'none',
};

export const accountRoutes: readonly Route[] = [
  {
    method: 'GET',
    pattern: '/rate_limit',
    handle: ({ rate }) => {
      const core = rate.snapshot('core');
      return ok({ resources: { core, graphql: rate.snapshot('graphql') }, rate: core });
    },
  },
  {
    method: 'GET',
    pattern: '/user',
    handle: ({ token, store, urls }) => {
      if (token.kind === 'installation') return errorReply(403, INTEGRATION_FORBIDDEN);
      return ok(userJson(store.ensureUser(token.login), urls));
    },
  },
  {
    method: 'GET',
    pattern: '/users/:login',
    handle: ({ params, store, urls }) => {
      const user = store.findUser(params.login ?? '');
      return user ? ok(userJson(user, urls)) : notFound();
    },
  },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo',
    handle: ({ token, store, urls }) => {
      // GitHub reports no permissions to an installation token here: all false, even with write access.
      const rank = token.kind === 'installation' ? -1 : ROLE_RANK[store.roleOf(token.login)];
      const { owner, repo } = store;
      return ok({
        id: repo.id,
        node_id: repo.nodeId,
        name: repo.name,
        full_name: `${owner.login}/${repo.name}`,
        private: repo.private,
        visibility: repo.private ? 'private' : 'public',
        owner: userJson(owner, urls),
        html_url: `${urls.html}/${owner.login}/${repo.name}`,
        url: `${urls.api}/repos/${owner.login}/${repo.name}`,
        default_branch: 'main',
        has_issues: true,
        archived: false,
        permissions: {
          admin: rank >= ROLE_RANK.admin,
          maintain: rank >= ROLE_RANK.maintain,
          push: rank >= ROLE_RANK.write,
          triage: rank >= ROLE_RANK.triage,
          pull: rank >= ROLE_RANK.read,
        },
      });
    },
  },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/collaborators/:login/permission',
    handle: ({ params, store, urls }) => {
      const user = store.findUser(params.login ?? '');
      if (!user) return notFound();
      const role = store.roleOf(user.login);
      return ok({ permission: COARSE[role], role_name: role, user: userJson(user, urls) });
    },
  },
];
