export { deleteLocalBranch, resetBranch, uncommitAgentWork } from './branch-tip.js';
export { type ChangedFile, type ChangeStatus, changedFiles, parsePorcelainZ } from './changed-files.js';
export { type CommitAllInput, type CommitAuthor, commitAll } from './commit-all.js';
export { type DiffStat, diffStat, parseNumstat } from './diff-stat.js';
export { classifyGitOutput, GitError, type GitErrorDetails, MAX_STDERR_TAIL } from './git-error.js';
export { headSha, revParse } from './head-sha.js';
export {
  defaultRemoteBranch,
  fetchBranch,
  type PushBranchInput,
  pushBranch,
  remoteBranchSha,
} from './remote.js';
export {
  DEFAULT_GIT_TIMEOUT_MS,
  type GitOptions,
  type GitResult,
  type RunGitOptions,
  runGit,
} from './run-git.js';
export { topLevelNames } from './top-level-names.js';
export { type AddWorktreeInput, addWorktree, removeWorktree } from './worktree.js';
