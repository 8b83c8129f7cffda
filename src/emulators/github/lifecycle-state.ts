import { type GitOrigin, openOrigin } from './git-origin.js';
import type { CheckRunRecord, ReviewCommentRecord, ReviewRecord, StatusRecord } from './records.js';
import type { SeedRequiredCheck } from './types.js';

/** What a pull request's life adds to the repository: its commits, checks, statuses and reviews. */
export interface Lifecycle {
  /** The bare repository standing for GitHub's copy, when the test gave one. */
  readonly origin: GitOrigin | undefined;
  readonly checkRuns: CheckRunRecord[];
  readonly statuses: StatusRecord[];
  readonly reviews: ReviewRecord[];
  readonly reviewComments: ReviewCommentRecord[];
  /** Branches whose protection requires a PR to be up to date with them before it merges. */
  readonly strictBranches: Set<string>;
  /** Required status checks per branch: from its protection, and from rulesets. */
  readonly requiredChecks: Map<string, { protection: SeedRequiredCheck[]; rulesets: SeedRequiredCheck[] }>;
}

export function createLifecycle(origin: string | undefined): Lifecycle {
  return {
    origin: origin === undefined ? undefined : openOrigin(origin),
    checkRuns: [],
    statuses: [],
    reviews: [],
    reviewComments: [],
    strictBranches: new Set(),
    requiredChecks: new Map(),
  };
}
