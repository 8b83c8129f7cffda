import { annotationJson, checkRunJson, statusJson } from './checks-serialize.js';
import {
  checkRunsOf,
  combinedState,
  findCheckRun,
  latestRuns,
  latestStatuses,
  logToken,
  statusesOf,
} from './checks-state.js';
import { paginate } from './pagination.js';
import { resolveCommit } from './pull-refs.js';
import { errorReply, notFound, ok, type Reply } from './replies.js';
import { intParam, type Route, type RouteContext } from './router.js';
import { pagedReply } from './routes-issues.js';
import { repoApi } from './serialize.js';

/** The commit of `/commits/{ref}/…`, or GitHub's 422 for a ref that names none. */
function commitOf(ctx: RouteContext): { sha: string } | { reply: Reply } {
  const ref = ctx.params.ref ?? '';
  const sha = resolveCommit(ctx.store, ref);
  return sha === undefined ? { reply: errorReply(422, `No commit found for SHA: ${ref}`) } : { sha };
}

/** `filter` (latest by default, or all), `check_name` and `status`, then one page with GitHub's link header. */
function listCheckRuns(ctx: RouteContext): Reply {
  const commit = commitOf(ctx);
  if ('reply' in commit) return commit.reply;
  const query = ctx.url.searchParams;
  const all = checkRunsOf(ctx.store, commit.sha);
  const runs = (query.get('filter') === 'all' ? all : latestRuns(all)).filter(
    (run) =>
      (query.get('check_name') ?? run.name) === run.name &&
      (query.get('status') ?? run.status) === run.status,
  );
  const page = paginate(runs, ctx.url);
  const body = {
    total_count: runs.length,
    check_runs: page.items.map((run) => checkRunJson(ctx.store, run, ctx.urls)),
  };
  return ok(body, page.link ? { link: page.link } : undefined);
}

/** The combined status: the newest status of each context and GitHub's verdict over them. */
function combinedStatus(ctx: RouteContext): Reply {
  const commit = commitOf(ctx);
  if ('reply' in commit) return commit.reply;
  const latest = latestStatuses(statusesOf(ctx.store, commit.sha));
  const page = paginate(latest, ctx.url);
  const api = repoApi(ctx.store, ctx.urls);
  const body = {
    state: combinedState(latest),
    statuses: page.items.map((status) => statusJson(ctx.store, status, ctx.urls, false)),
    sha: commit.sha,
    total_count: latest.length,
    commit_url: `${api}/commits/${commit.sha}`,
    url: `${api}/commits/${commit.sha}/status`,
  };
  return ok(body, page.link ? { link: page.link } : undefined);
}

/**
 * Like GitHub, the job's log is not in the API's answer: a redirect to a short-lived, pre-signed
 * storage URL, here under the emulator's own base so the emulator's fetch can follow it.
 */
function jobLogs(ctx: RouteContext): Reply {
  const run = findCheckRun(ctx.store, intParam(ctx, 'job_id'));
  if (run?.log === undefined) return notFound();
  const location = `${ctx.urls.api}/_emulator/logs/${run.id}?token=${logToken(run)}`;
  return { status: 302, headers: { location } };
}

/** The storage side of a job log (outside the API: no token, no rate limit), or undefined for another path. */
export function emulatorFile(ctx: Pick<RouteContext, 'store' | 'url'>, rel: string): Reply | undefined {
  const match = /^\/_emulator\/logs\/(\d+)$/.exec(rel);
  if (!match) return undefined;
  const run = findCheckRun(ctx.store, Number(match[1]));
  if (run?.log === undefined) return { status: 404, body: 'The specified blob does not exist.' };
  if (ctx.url.searchParams.get('token') !== logToken(run)) {
    return { status: 403, body: 'Server failed to authenticate the request.' };
  }
  return { status: 200, body: run.log };
}

export const checkRoutes: readonly Route[] = [
  { method: 'GET', pattern: '/repos/:owner/:repo/commits/*ref/check-runs', handle: listCheckRuns },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/check-runs/:id',
    handle: (ctx) => {
      const run = findCheckRun(ctx.store, intParam(ctx, 'id'));
      return run ? ok(checkRunJson(ctx.store, run, ctx.urls)) : notFound();
    },
  },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/check-runs/:id/annotations',
    handle: (ctx) => {
      const run = findCheckRun(ctx.store, intParam(ctx, 'id'));
      if (!run) return notFound();
      return pagedReply(ctx, run.annotations, (note) => annotationJson(ctx.store, run, note, ctx.urls));
    },
  },
  { method: 'GET', pattern: '/repos/:owner/:repo/commits/*ref/status', handle: combinedStatus },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/commits/*ref/statuses',
    handle: (ctx) => {
      const commit = commitOf(ctx);
      if ('reply' in commit) return commit.reply;
      const list = statusesOf(ctx.store, commit.sha);
      return pagedReply(ctx, list, (status) => statusJson(ctx.store, status, ctx.urls));
    },
  },
  { method: 'GET', pattern: '/repos/:owner/:repo/actions/jobs/:job_id/logs', handle: jobLogs },
];
