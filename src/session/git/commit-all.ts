import { IssueloopError } from '../../core/errors.js';
import { headSha } from './head-sha.js';
import { type GitOptions, runGit } from './run-git.js';

export interface CommitAuthor {
  name: string;
  email: string;
}

export interface CommitAllInput {
  message: string;
  author: CommitAuthor;
}

// git rejects these in an ident outright, or silently strips them; either way not what was asked for.
const BAD_IDENT = /[<>\0\r\n]/;

function assertAuthor(author: CommitAuthor): void {
  for (const value of [author.name, author.email]) {
    if (value.trim() === '' || BAD_IDENT.test(value)) {
      throw new IssueloopError('git_invalid_argument', `invalid commit author: ${JSON.stringify(value)}`);
    }
  }
}

/** Whether a merge is under way (MERGE_HEAD is set): its commit has two parents. */
async function merging(run: GitOptions & { cwd: string }): Promise<boolean> {
  const head = await runGit(['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { ...run, okExitCodes: [1] });
  return head.exitCode === 0;
}

/**
 * Stages everything (`add -A`) and commits it as `author`, who is also the committer. Returns the
 * new sha, or undefined when there was nothing to commit (no empty commit is made, except the commit
 * of a merge under way).
 */
export async function commitAll(
  worktree: string,
  input: CommitAllInput,
  options: GitOptions = {},
): Promise<string | undefined> {
  assertAuthor(input.author);
  const run = { ...options, cwd: worktree };
  await runGit(['add', '-A'], run);
  const staged = await runGit(['diff', '--cached', '--quiet', '--no-ext-diff'], { ...run, okExitCodes: [1] });
  // A merge whose resolution keeps the branch's tree is still a commit to make: it records the merge.
  if (staged.exitCode === 0 && !(await merging(run))) return undefined;
  const { name, email } = input.author;
  // GIT_AUTHOR_*/GIT_COMMITTER_* outrank both -c and --author, so a caller's environment could
  // otherwise sign the commit as someone else.
  const env = {
    ...(options.env ?? process.env),
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
  };
  await runGit(
    [
      '-c',
      `user.name=${name}`,
      '-c',
      `user.email=${email}`,
      // Hooks are off for every harness git (run-git): --no-verify is kept as a second lock.
      'commit',
      '--no-verify',
      '--no-gpg-sign',
      '--quiet',
      // From stdin: no editor, no argument-length limit; whitespace cleanup keeps `#` lines.
      '--file=-',
      '--cleanup=whitespace',
    ],
    { ...run, env, input: input.message },
  );
  return headSha(worktree, options);
}
