import { REPLY_MARKER, type ReviewThread, type ThreadComment } from '../../github/review-threads.js';

/** A review thread that asks issueloop for a change: the conversation it may be shown. */
export interface ReviewRequest {
  threadId: string;
  path: string;
  line: number | null;
  diffHunk: string;
  /** The thread's comments from people with write access and issueloop's own replies, oldest first. */
  comments: ThreadComment[];
  /** Comments left out because their authors cannot write to the repository. */
  leftOut: number;
}

/**
 * The unresolved threads in which someone with write access wrote after issueloop's last reply (or
 * since the thread began). Comments by people without write access never start work and are never
 * shown to the agent (the same trust rule as for issues). issueloop's replies are its own login's
 * comments carrying REPLY_MARKER (a pasted marker is not one).
 */
export async function unansweredRequests(
  threads: readonly ReviewThread[],
  who: { self: string; mayWrite: (login: string) => Promise<boolean> },
): Promise<ReviewRequest[]> {
  const requests: ReviewRequest[] = [];
  for (const thread of threads) {
    if (thread.isResolved) continue;
    const shown: ThreadComment[] = [];
    let leftOut = 0;
    let waiting = false;
    for (const comment of thread.comments) {
      const own = sameAccount(comment.author, who.self);
      if (!own && !(await who.mayWrite(comment.author))) {
        leftOut += 1;
        continue;
      }
      shown.push(comment);
      waiting = !(own && comment.body.includes(REPLY_MARKER));
    }
    if (!waiting) continue;
    requests.push({
      threadId: thread.id,
      path: thread.path,
      line: thread.line,
      diffHunk: thread.comments[0]?.diffHunk ?? '',
      comments: shown,
      leftOut,
    });
  }
  return requests;
}

/**
 * GraphQL's `viewer.login` of an app is `name[bot]`, while its comments' `author.login` is `name`:
 * the two are the same account.
 */
export function sameAccount(a: string, b: string): boolean {
  const bare = (login: string) => login.toLowerCase().replace(/\[bot\]$/, '');
  return bare(a) === bare(b);
}
