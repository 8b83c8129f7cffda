import { describe, expect, it } from 'vitest';
import { isOwnHead, issueBranch, issueOfBranch } from '../../src/github/own-branch.js';

const repo = { owner: 'Octo-Org', name: 'widgets' };

describe("issueloop's own branches", () => {
  it("names an issue's branch and reads the issue back; any other branch is none", () => {
    expect(issueBranch(42)).toBe('issueloop/issue-42');
    expect(issueOfBranch(issueBranch(42))).toBe(42);
    for (const ref of [
      'issueloop/issue-',
      'issueloop/issue-4x',
      'x/issueloop/issue-4',
      'main',
      undefined,
      7,
    ]) {
      expect(issueOfBranch(ref), String(ref)).toBeUndefined();
    }
  });

  it("a fork's head is not ours, nor a deleted fork's (its label names the forker)", () => {
    expect(
      isOwnHead({ repo: { full_name: 'octo-org/Widgets' }, label: 'octo-org:issueloop/issue-1' }, repo),
    ).toBe(true);
    // GitHub sends neither for some answers: the emulator's, an old event's.
    expect(isOwnHead({}, repo)).toBe(true);
    expect(isOwnHead(undefined, repo)).toBe(true);
    expect(isOwnHead({ repo: { full_name: 'forker/widgets' } }, repo)).toBe(false);
    expect(isOwnHead({ repo: null, label: 'forker:issueloop/issue-1' }, repo)).toBe(false);
    expect(isOwnHead({ label: 'octo-org:issueloop/issue-1' }, repo)).toBe(true);
  });
});
