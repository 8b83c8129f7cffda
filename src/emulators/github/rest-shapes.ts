/** The REST JSON the emulator returns (the fields it fills of GitHub's larger objects). */

export interface UserJson {
  login: string;
  id: number;
  node_id: string;
  url: string;
  html_url: string;
  type: 'User' | 'Bot' | 'Organization';
  site_admin: boolean;
}

export interface LabelJson {
  id: number;
  node_id: string;
  url: string;
  name: string;
  color: string;
  default: boolean;
  description: string | null;
}

export interface IssueJson {
  url: string;
  repository_url: string;
  comments_url: string;
  events_url: string;
  html_url: string;
  id: number;
  node_id: string;
  number: number;
  title: string;
  user: UserJson;
  labels: LabelJson[];
  state: 'open' | 'closed';
  state_reason: 'completed' | 'not_planned' | 'reopened' | null;
  locked: boolean;
  comments: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  author_association: string;
  body: string | null;
  /** Counts of GitHub's issue dependencies; `blocked_by` and `blocking` count open issues only. */
  issue_dependencies_summary: {
    blocked_by: number;
    blocking: number;
    total_blocked_by: number;
    total_blocking: number;
  };
  /** `GET /issues/{n}` only (a list leaves it out): who closed it last, null while open. */
  closed_by?: UserJson | null;
  /** Pull requests only. */
  draft?: boolean;
  pull_request?: {
    url: string;
    html_url: string;
    diff_url: string;
    patch_url: string;
    merged_at: string | null;
  };
}

export interface PullRefJson {
  label: string;
  ref: string;
  sha: string;
}

/** A PR as lists show it (GitHub's pull-request-simple): no mergeability, no `merged`. */
export interface PullSimpleJson {
  url: string;
  id: number;
  node_id: string;
  html_url: string;
  issue_url: string;
  number: number;
  state: 'open' | 'closed';
  locked: boolean;
  title: string;
  user: UserJson;
  body: string | null;
  labels: LabelJson[];
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  merged_at: string | null;
  /** The merge commit once merged; null before (the emulator makes no test merges). */
  merge_commit_sha: string | null;
  draft: boolean;
  head: PullRefJson;
  base: PullRefJson;
  requested_reviewers: UserJson[];
  author_association: string;
}

/** A single PR (get, create, update): with what GitHub computes about merging it. */
export interface PullJson extends PullSimpleJson {
  merged: boolean;
  /** Null while GitHub computes it (right after creation) and once the PR is closed. */
  mergeable: boolean | null;
  mergeable_state: 'dirty' | 'draft' | 'behind' | 'unstable' | 'clean' | 'unknown';
  merged_by: UserJson | null;
  comments: number;
  review_comments: number;
}

export interface CommentJson {
  url: string;
  html_url: string;
  issue_url: string;
  id: number;
  node_id: string;
  user: UserJson;
  created_at: string;
  updated_at: string;
  author_association: string;
  body: string;
}

export interface EventJson {
  id: number;
  node_id: string;
  url: string;
  actor: UserJson;
  event: string;
  commit_id: string | null;
  commit_url: string | null;
  created_at: string;
  label?: { name: string; color: string };
  /** `renamed` events: the title before and after. */
  rename?: { from: string; to: string };
}
