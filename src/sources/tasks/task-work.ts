import { SUMMARY_PREFIX } from '../../agent/compaction/compact.js';
import { withResumeNotes } from '../../agent/first-message.js';
import type { ThreadCarry } from '../../engines/engine.js';
import { sanitizeIssueText } from '../../github/sanitize.js';
import type { CommitAuthor } from '../../session/git/index.js';
import { commitAll, GitError, headSha, revParse, runGit } from '../../session/git/index.js';
import { ReadBackError, type SessionWork } from '../../session/session-work.js';
import type { Task } from './task-file.js';

/** A task of a task file, with its claim key. */
export type TaskWorkItem = Pick<Task, 'id' | 'index' | 'group' | 'text' | 'engine'> & { key: number };

export interface TaskWorkOptions {
  checkout: string;
  /** Every task of the file commits on this branch, in file order. */
  branch: string;
  /** One worktree path for the whole file, so a group's conversation keeps naming the same files. */
  worktreeName: string;
  author: CommitAuthor;
  boot?: { path: string; text: string };
  /** The group's conversation so far, and where this task leaves it. */
  thread?: { from?: ThreadCarry; keep(carry: ThreadCarry): void };
}

/**
 * The first message of a task (seed 000 feature 5): a group's first task is named with its group; a
 * task continuing its group's conversation is `NEXT TASK: <task>`; after a compaction the summary
 * comes first, as `CONTEXT FROM PREVIOUS SESSION: <summary>` then `NEXT TASK: <task>`.
 */
export function renderTaskMessage(task: TaskWorkItem, thread: ThreadCarry | undefined): string {
  if (thread?.summary) return `${SUMMARY_PREFIX}\n${thread.summary}\n\nNEXT TASK: ${task.text}`;
  if (thread && (thread.sessionId || thread.messages?.length)) return `NEXT TASK: ${task.text}`;
  return `Task ${task.index} (${task.group}): ${task.text}`;
}

/** The branch's tip when it exists, else what the checkout has checked out. */
async function branchOrHead(checkout: string, branch: string, git: Parameters<SessionWork['startPoint']>[0]) {
  const found = await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], {
    ...git,
    cwd: checkout,
    okExitCodes: [1],
  });
  return found.exitCode === 0 ? found.stdout.trim() : headSha(checkout, git);
}

/**
 * A task as a session's work, without GitHub: the file's branch continues from its tip (or from the
 * checkout's HEAD for the first task), and validated work is delivered as a commit on that branch,
 * confirmed by reading the branch back. Nothing is pushed.
 */
export function taskWork(task: TaskWorkItem, options: TaskWorkOptions): SessionWork {
  const thread = options.thread?.from;
  return {
    key: task.key,
    logFields: { task: task.index },
    subject: 'task',
    branch: options.branch,
    worktreeName: options.worktreeName,
    task: `Task ${task.index} (${task.group}): ${task.text.split('\n')[0]}`,
    rawBody: '',
    ...(options.boot ? { boot: options.boot } : {}),
    ...(task.engine ? { engine: task.engine } : {}),
    ...(options.thread ? { thread: options.thread } : {}),
    firstMessage: (resume) =>
      withResumeNotes([renderTaskMessage(task, thread)], {
        ...resume,
        // Untrusted (verify output is the agent's code's): hidden text goes, as from an issue.
        ...(resume?.lastFailure
          ? {
              lastFailure: {
                ...resume.lastFailure,
                message: sanitizeIssueText(resume.lastFailure.message).text,
              },
            }
          : {}),
      }).join('\n\n'),
    startPoint: (git) => branchOrHead(options.checkout, options.branch, git),
    async deliver(input, git) {
      const title = task.text.split('\n')[0]?.slice(0, 72) ?? task.text;
      const commit = await commitAll(
        input.worktree,
        {
          message: `${title}\n\nTask ${task.index} (${task.group}) of a task file, done by issueloop.\n\nTask-Id: ${task.id}`,
          author: options.author,
        },
        git,
      );
      if (commit === undefined) throw new ReadBackError('nothing to commit');
      let onBranch: string;
      try {
        onBranch = await revParse(options.checkout, `refs/heads/${options.branch}`, git);
      } catch (err) {
        if (err instanceof GitError) throw new ReadBackError(`branch ${options.branch}: ${err.message}`);
        throw err;
      }
      if (onBranch !== commit) {
        throw new ReadBackError(
          `branch ${options.branch} is at ${onBranch.slice(0, 7)}, not ${commit.slice(0, 7)}`,
        );
      }
      return { commit, reason: `committed ${commit.slice(0, 7)} on ${options.branch}` };
    },
  };
}
