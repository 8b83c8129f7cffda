/**
 * The one line a person sees when something that cannot be reached is tried again: what failed
 * (already redacted), which retry of how many, and the wait. Without it a run that cannot reach
 * GitHub or the model API sat silent for the 10–17 s its retries take before it said anything.
 */
export interface RetryNotice {
  /** What was being done: "GET /repos/acme/widgets/issues", "model call". */
  operation: string;
  /** Why it failed, one redacted line. */
  message: string;
  /** This retry's number, from 1. */
  retry: number;
  /** How many retries there can be at most. */
  retries: number;
  waitMs: number;
}

/** "GET /repos/a/b/issues: connect ECONNREFUSED 127.0.0.1:8080; retrying 2/5 in 4 s…" */
export function retryNoticeText(notice: RetryNotice): string {
  const seconds = Math.max(1, Math.ceil(notice.waitMs / 1000));
  const of = Math.max(notice.retries, notice.retry);
  return `${notice.operation}: ${notice.message}; retrying ${notice.retry}/${of} in ${seconds} s…`;
}
