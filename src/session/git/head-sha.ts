import { firstLine } from './git-args.js';
import { type GitOptions, runGit } from './run-git.js';

/** The commit sha HEAD of `cwd` points at. */
export async function headSha(cwd: string, options: GitOptions = {}): Promise<string> {
  return revParse(cwd, 'HEAD', options);
}

/** Resolves a revision to a commit sha (`^{commit}`: a tag resolves to what it tags). */
export async function revParse(cwd: string, rev: string, options: GitOptions = {}): Promise<string> {
  const { stdout } = await runGit(['rev-parse', '--verify', '--end-of-options', `${rev}^{commit}`], {
    ...options,
    cwd,
  });
  return firstLine(stdout);
}
