import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeScope } from '../../../src/engines/claude-code/claude-scope.js';
import { claudeProjectDir } from '../../../src/engines/claude-code/session-history.js';
import type { WorktreeSandboxes } from '../../../src/sandbox/sandbox-host.js';
import { HOST_PATH, scratchSandboxes, shellIn } from '../../helpers/sandbox.js';

/**
 * Red team (issue 29): the `claude` sandbox shows the user's real `~/.claude/projects` read-write, all
 * of it: the transcripts of every other project the user ever ran Claude Code in (what they pasted,
 * what their tools printed) are readable by the hostile `claude` and its commands, to send on through
 * `allow_domains`, the PR body or the model call itself; and they are writable, so the next
 * `claude --continue` the user runs, unconfined, in that other project resumes a history the agent
 * wrote. The home here is a scratch directory laid out like a user's.
 */
const OTHER_SECRET = 'user-pasted-this-into-another-project-0123456789';
let root: string;
let home: string;
let worktree: string;
let sandboxes: WorktreeSandboxes;
let otherSession: string;

beforeAll(async () => {
  ({ root, worktree, sandboxes } = await scratchSandboxes('issueloop-projects-'));
  home = join(root, 'home', 'dev');
  const other = join(home, '.claude', 'projects', '-home-dev-payroll-service');
  mkdirSync(other, { recursive: true });
  otherSession = join(other, '5f0c2a9e-0000-4000-8000-000000000001.jsonl');
  writeFileSync(otherSession, `${JSON.stringify({ type: 'user', message: { content: OTHER_SECRET } })}\n`);
}, 60_000);

afterAll(async () => {
  await sandboxes?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("the claude role and the user's other projects", () => {
  it('red: reads another project’s transcript in ~/.claude/projects and appends to it', async () => {
    const scope = await claudeScope('/usr/bin/true', { HOME: home, PATH: process.env.PATH });
    const sandbox = await sandboxes.claude(scope);
    const injected = JSON.stringify({ type: 'user', message: { content: 'planted by the agent' } });
    const result = await shellIn(
      sandbox,
      worktree,
      `cat ~/.claude/projects/*/*.jsonl 2>&1; echo '${injected}' >> ~/.claude/projects/-home-dev-payroll-service/5f0c2a9e-0000-4000-8000-000000000001.jsonl 2>&1; echo done`,
      { PATH: HOST_PATH, HOME: home },
    );
    expect(result.output).toContain('done');
    // Expected: the user's other projects are neither in sight nor in reach of the sandbox.
    expect({
      read: result.output.includes(OTHER_SECRET),
      written: readFileSync(otherSession, 'utf8').includes('planted by the agent'),
    }).toEqual({ read: false, written: false });
    rmSync(scope.scratch, { recursive: true, force: true });
  });

  it("as the engine opens it (with the worktree): only the worktree's project directory is there, the real one, writable", async () => {
    const scope = await claudeScope('/usr/bin/true', { HOME: home, PATH: process.env.PATH }, [], worktree);
    const sandbox = await sandboxes.claude(scope);
    const own = claudeProjectDir(worktree);
    const result = await shellIn(
      sandbox,
      worktree,
      `ls -a ~/.claude/projects; cat ~/.claude/projects/*/*.jsonl 2>&1; echo mine > ~/.claude/projects/${own}/s.jsonl && echo wrote`,
      { PATH: HOST_PATH, HOME: home },
    );
    expect(result.output).toContain('wrote');
    expect(result.output).not.toContain(OTHER_SECRET);
    expect(result.output).not.toContain('-home-dev-payroll-service');
    expect(readFileSync(join(home, '.claude', 'projects', own, 's.jsonl'), 'utf8')).toBe('mine\n');
    rmSync(scope.scratch, { recursive: true, force: true });
  });
});
