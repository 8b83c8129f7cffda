/**
 * issueloop's own branches: `issueloop/issue-<n>` of the repository itself. A fork's branch of the
 * same name is someone else's, and so is a deleted fork's (GitHub then sends no head repository, but
 * the head's label, `forker:branch`, still says whose it is).
 */

const OWN_BRANCH = /^issueloop\/issue-(\d+)$/;

/** The branch issueloop works issue `issue` on. */
export function issueBranch(issue: number): string {
  return `issueloop/issue-${issue}`;
}

/** The issue an `issueloop/issue-<n>` branch is for, or undefined for any other branch. */
export function issueOfBranch(ref: unknown): number | undefined {
  const match = typeof ref === 'string' ? OWN_BRANCH.exec(ref) : null;
  return match ? Number(match[1]) : undefined;
}

/** Whether a pull request's head is on the repository `owner/name` itself, not on a fork. */
export function isOwnHead(
  head: { repo?: { full_name?: unknown } | null; label?: unknown } | undefined,
  repo: { owner: string; name: string },
): boolean {
  const from = head?.repo?.full_name;
  if (typeof from === 'string' && from.toLowerCase() !== `${repo.owner}/${repo.name}`.toLowerCase())
    return false;
  const label = head?.label;
  return typeof label !== 'string' || label.toLowerCase().startsWith(`${repo.owner.toLowerCase()}:`);
}
