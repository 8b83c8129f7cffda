import { sha1 } from './ids.js';
import { pullShas, pullsAt } from './pull-refs.js';
import type { AnnotationRecord, CheckRunRecord, StatusRecord } from './records.js';
import { repoApi, repoHtml, type Urls, userOf } from './serialize.js';
import type { Store } from './store.js';

/** GitHub Actions' app id on github.com. */
export const ACTIONS_APP_ID = 15368;

/** An app's id: GitHub Actions' own, any other slug a stable number of its own. */
export function emulatedAppId(slug: string): number {
  return slug === 'github-actions'
    ? ACTIONS_APP_ID
    : 100_000 + (Number.parseInt(sha1(`app:${slug}`).slice(0, 8), 16) % 900_000);
}

/** The app that created a check run, in GitHub's shape (GitHub Actions unless the seed named another). */
function appJson(urls: Urls, slug = 'github-actions') {
  if (slug === 'github-actions') {
    return {
      id: ACTIONS_APP_ID,
      slug,
      node_id: 'MDM6QXBwMTUzNjg=',
      name: 'GitHub Actions',
      description: 'Automate your workflow from idea to production',
      external_url: 'https://help.github.com/en/actions',
      html_url: `${urls.html}/apps/github-actions`,
    };
  }
  const id = emulatedAppId(slug);
  return {
    id,
    slug,
    node_id: Buffer.from(`04:App${id}`).toString('base64'),
    name: slug,
    description: null,
    external_url: `${urls.html}/apps/${slug}`,
    html_url: `${urls.html}/apps/${slug}`,
  };
}

/** GitHub's minimal PR in a check run: number, and the head and base with their repository. */
function checkPullJson(store: Store, urls: Urls, sha: string) {
  const repo = { id: store.repo.id, url: repoApi(store, urls), name: store.repo.name };
  return pullsAt(store, sha).map((issue) => {
    const shas = pullShas(store, issue);
    return {
      url: `${repoApi(store, urls)}/pulls/${issue.number}`,
      id: issue.pull?.id,
      number: issue.number,
      head: { ref: issue.pull?.headRef, sha: shas.head, repo },
      base: { ref: issue.pull?.baseRef, sha: shas.base, repo },
    };
  });
}

export function checkRunJson(store: Store, run: CheckRunRecord, urls: Urls) {
  const api = `${repoApi(store, urls)}/check-runs/${run.id}`;
  const html = `${repoHtml(store, urls)}/actions/runs/${run.runId}/job/${run.id}`;
  return {
    id: run.id,
    name: run.name,
    node_id: run.nodeId,
    head_sha: run.headSha,
    external_id: '',
    url: api,
    html_url: html,
    details_url: html,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: {
      title: run.output.title,
      summary: run.output.summary,
      text: run.output.text,
      annotations_count: run.annotations.length,
      annotations_url: `${api}/annotations`,
    },
    check_suite: { id: run.runId },
    app: appJson(urls, run.app),
    pull_requests: checkPullJson(store, urls, run.headSha),
  };
}

export function annotationJson(store: Store, run: CheckRunRecord, note: AnnotationRecord, urls: Urls) {
  return {
    path: note.path,
    blob_href: `${repoHtml(store, urls)}/blob/${run.headSha}/${note.path}`,
    start_line: note.startLine,
    end_line: note.endLine,
    start_column: null,
    end_column: null,
    annotation_level: note.level,
    title: note.title,
    message: note.message,
    raw_details: null,
  };
}

/** A status as `/statuses` lists it; the combined status leaves out the creator, as GitHub does. */
export function statusJson(store: Store, status: StatusRecord, urls: Urls, withCreator = true) {
  const creator = userOf(store, status.creator, urls);
  return {
    url: `${repoApi(store, urls)}/statuses/${status.sha}`,
    avatar_url: `${urls.html}/${creator.login}.png`,
    id: status.id,
    node_id: status.nodeId,
    state: status.state,
    description: status.description,
    target_url: status.targetUrl,
    context: status.context,
    created_at: status.createdAt,
    updated_at: status.createdAt,
    ...(withCreator ? { creator } : {}),
  };
}
