/**
 * The plan states an issue's claim record keeps as its last outcome, so every runner sees them:
 * a plan waits for review (skipped, nothing charged), was withdrawn unanswered (skipped until
 * `/issueloop plan` or `/issueloop retry`), was answered (`/approve`, `/revise`) or asked for
 * (`/issueloop plan`): those three are claimable again.
 */
export const PLAN_REVIEW = 'plan_review';
export const PLAN_WITHDRAWN = 'plan_withdrawn';
export const PLAN_APPROVED = 'plan_approved';
export const PLAN_REVISE = 'plan_revise';
export const PLAN_REQUESTED = 'plan_requested';
