import { IssueloopError } from '../../core/errors.js';
import { assertSha, firstLine } from './git-args.js';
import { headSha } from './head-sha.js';
import { type GitOptions, runGit } from './run-git.js';

export interface CommitAuthor {
  name: string;
  email: string;
}

export interface CommitAllInput {
  message: string;
  author: CommitAuthor;
  /**
   * A merge's second parent, as the harness recorded it (never read from MERGE_HEAD, which an agent
   * with the shared git could write): the commit is a merge of it, even when the tree equals HEAD.
   */
  mergeParent?: string;
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

/**
 * Stages everything (`add -A`) and commits it as `author`, who is also the committer. Returns the
 * new sha, or undefined when there was nothing to commit (no empty commit is made, except the commit
 * of a merge: `mergeParent`). A MERGE_HEAD left in the worktree's git is ignored.
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
  if (staged.exitCode === 0 && input.mergeParent === undefined) return undefined;
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
  if (input.mergeParent !== undefined) return commitMerge(run, env, input, options);
  // Not a merge: a MERGE_HEAD someone left would become a second parent, pushed unscanned.
  await runGit(['update-ref', '-d', 'MERGE_HEAD'], run);
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

/**
 * The merge commit, built by the harness from the staged tree with exactly HEAD and `mergeParent`
 * as parents (`commit-tree`: no MERGE_HEAD, no fast-forward reduction), then HEAD's branch moved to it.
 */
async function commitMerge(
  run: GitOptions & { cwd: string },
  env: Readonly<Record<string, string | undefined>>,
  input: CommitAllInput,
  options: GitOptions,
): Promise<string> {
  const parent = assertSha('merge parent', input.mergeParent ?? '');
  const head = await headSha(run.cwd, options);
  const tree = firstLine((await runGit(['write-tree'], run)).stdout);
  const message = `${input.message.trim()}\n`;
  const { stdout } = await runGit(
    ['commit-tree', '--no-gpg-sign', tree, '-p', head, '-p', parent, '-F', '-'],
    {
      ...run,
      env,
      input: message,
    },
  );
  const sha = firstLine(stdout);
  await runGit(['update-ref', '-m', 'issueloop: merge', 'HEAD', sha, head], run);
  // What a `git merge --no-commit` left is done with.
  await runGit(['update-ref', '-d', 'MERGE_HEAD'], run);
  return sha;
}
