import type { ReviewCommentRecord, ReviewRecord } from './records.js';
import { isOutdated } from './reviews-state.js';
import { repoApi, repoHtml, type Urls, userOf } from './serialize.js';
import type { Store } from './store.js';

export function reviewJson(store: Store, review: ReviewRecord, urls: Urls) {
  const html = `${repoHtml(store, urls)}/pull/${review.pullNumber}#pullrequestreview-${review.id}`;
  const pull = `${repoApi(store, urls)}/pulls/${review.pullNumber}`;
  return {
    id: review.id,
    node_id: review.nodeId,
    user: userOf(store, review.author, urls),
    body: review.body,
    state: review.state,
    html_url: html,
    pull_request_url: pull,
    author_association: review.authorAssociation,
    _links: { html: { href: html }, pull_request: { href: pull } },
    submitted_at: review.submittedAt,
    commit_id: review.commitId,
  };
}

/**
 * A review comment as `/pulls/{n}/comments` lists it. An outdated one keeps its `original_line`
 * and loses its `line`, as on GitHub; replies carry `in_reply_to_id`.
 */
export function reviewCommentJson(store: Store, comment: ReviewCommentRecord, urls: Urls) {
  const api = `${repoApi(store, urls)}/pulls/comments/${comment.id}`;
  const html = `${repoHtml(store, urls)}/pull/${comment.pullNumber}#discussion_r${comment.id}`;
  const pull = `${repoApi(store, urls)}/pulls/${comment.pullNumber}`;
  const root = store.lifecycle.reviewComments.find((c) => c.id === (comment.inReplyTo ?? comment.id));
  const outdated = root !== undefined && isOutdated(store, root);
  return {
    url: api,
    pull_request_review_id: comment.reviewId,
    id: comment.id,
    node_id: comment.nodeId,
    diff_hunk: comment.diffHunk,
    path: comment.path,
    commit_id: comment.commitId,
    original_commit_id: comment.commitId,
    ...(comment.inReplyTo === undefined ? {} : { in_reply_to_id: comment.inReplyTo }),
    user: userOf(store, comment.author, urls),
    body: comment.body,
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    html_url: html,
    pull_request_url: pull,
    author_association: comment.authorAssociation,
    _links: { self: { href: api }, html: { href: html }, pull_request: { href: pull } },
    start_line: null,
    original_start_line: null,
    start_side: null,
    line: outdated ? null : comment.line,
    original_line: comment.line,
    side: comment.side,
    subject_type: 'line',
  };
}
