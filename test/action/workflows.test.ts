import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { decide } from '../../src/action/event.js';
import { INPUT_NAMES, OUTPUT_NAMES } from '../../src/action/inputs.js';
import { type CommentCommand, commandText } from '../../src/github/comment-commands.js';
import { commentPayload, ROOT, readActionYaml } from './action-fixture.js';

interface Step {
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}

interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  concurrency: { group: string; 'cancel-in-progress'?: boolean };
  jobs: Record<string, { steps: Step[]; 'timeout-minutes'?: number }>;
}

/** A workflow expression as written in YAML: `${{ name }}`. */
const expression = (name: string) => `\${{ ${name} }}`;

const EXAMPLES = join(ROOT, 'examples', 'workflows');

async function examples(): Promise<Array<{ file: string; text: string; workflow: Workflow }>> {
  const files = (await readdir(EXAMPLES)).filter((f) => f.endsWith('.yml')).sort();
  return Promise.all(
    files.map(async (file) => {
      const text = await readFile(join(EXAMPLES, file), 'utf8');
      return { file, text, workflow: parse(text) as Workflow };
    }),
  );
}

const issueloopSteps = (workflow: Workflow) =>
  Object.values(workflow.jobs).flatMap((job) =>
    job.steps.filter((s) => s.uses?.startsWith('issueloop/issueloop@')),
  );

describe('action.yml', () => {
  it('declares exactly the inputs and outputs the action reads and writes, and runs the bundle on node24', async () => {
    const action = await readActionYaml();
    expect(Object.keys(action.inputs).sort()).toEqual([...INPUT_NAMES].sort());
    expect(Object.keys(action.outputs).sort()).toEqual([...OUTPUT_NAMES].sort());
    expect(action.runs.using).toBe('node24');
    expect(existsSync(join(ROOT, action.runs.main))).toBe(true);
    const required = Object.entries(action.inputs).filter(([, spec]) => spec.required);
    expect(required.map(([name]) => name)).toEqual(['anthropic_api_key']);
    for (const [name, spec] of Object.entries(action.inputs)) {
      expect((spec as { description?: string }).description, name).toBeTruthy();
    }
  });
});

describe('the example workflows', () => {
  it('parse, use only inputs and outputs that exist, and ask for the least permissions', async () => {
    const action = await readActionYaml();
    const found = await examples();
    expect(found.map((e) => e.file)).toEqual([
      'issueloop-commands.yml',
      'issueloop-drain.yml',
      'issueloop-followup.yml',
      'issueloop-issue.yml',
    ]);
    for (const { file, text, workflow } of found) {
      const steps = issueloopSteps(workflow);
      expect(steps, file).toHaveLength(1);
      for (const key of Object.keys(steps[0]?.with ?? {}))
        expect(Object.keys(action.inputs), `${file}: ${key}`).toContain(key);
      expect(steps[0]?.with?.anthropic_api_key).toBe(expression('secrets.ANTHROPIC_API_KEY'));
      for (const [, output] of text.matchAll(/steps\.issueloop\.outputs\.([a-z_]+)/g)) {
        expect(OUTPUT_NAMES as readonly string[], `${file}: output ${output}`).toContain(output);
      }
      expect(workflow.permissions).toEqual({ contents: 'write', issues: 'write', 'pull-requests': 'write' });
      expect(workflow.concurrency['cancel-in-progress']).toBe(false);
      for (const job of Object.values(workflow.jobs)) expect(job['timeout-minutes'], file).toBeGreaterThan(0);
    }
  });

  it('lead with the App route and have no silent fallback to the Actions token (its PRs get no CI)', async () => {
    for (const { file, text, workflow } of await examples()) {
      const step = issueloopSteps(workflow)[0];
      expect(step?.with?.app_id, file).toBe(expression('vars.ISSUELOOP_APP_ID'));
      expect(step?.with?.app_private_key, file).toBe(expression('secrets.ISSUELOOP_APP_PRIVATE_KEY'));
      expect(step?.with, file).not.toHaveProperty('github_token');
      expect(text, file).not.toMatch(/\|\|\s*github\.token/);
      const checkout = Object.values(workflow.jobs)
        .flatMap((job) => job.steps)
        .find((s) => s.uses?.startsWith('actions/checkout@'));
      expect(checkout?.with?.['persist-credentials'], file).toBe(false);
      expect(checkout?.with, file).not.toHaveProperty('token');
    }
  });

  it('per issue: labeled events only, one concurrency group per issue', async () => {
    const { workflow } = (await examples()).find((e) => e.file === 'issueloop-issue.yml') as {
      workflow: Workflow;
    };
    expect(workflow.on).toEqual({ issues: { types: ['labeled'] } });
    expect(workflow.concurrency.group).toBe(`issueloop-issue-${expression('github.event.issue.number')}`);
  });

  it("follow-up: CI finished, a review, a closed PR; only on issueloop's branches, one group per branch", async () => {
    const workflow = (await examples()).find((e) => e.file === 'issueloop-followup.yml')?.workflow;
    if (!workflow) throw new Error('issueloop-followup.yml is missing');
    expect(workflow.on).toEqual({
      workflow_run: { workflows: ['CI'], types: ['completed'] },
      check_suite: { types: ['completed'] },
      pull_request_review: { types: ['submitted'] },
      pull_request: { types: ['closed'] },
    });
    // Each of these events is one the action follows (src/action/event.ts).
    for (const [name, spec] of Object.entries(workflow.on as Record<string, { types: string[] }>)) {
      const decision = decide(
        { name, payload: followUpPayload(name, spec.types[0] as string) },
        'auto',
        'issueloop',
      );
      expect(decision, name).toMatchObject({ kind: 'issue', issue: 3 });
    }
    expect(workflow.concurrency.group).toContain('github.event.workflow_run.head_branch');
    const job = Object.values(workflow.jobs)[0] as { if?: string };
    expect(job.if).toContain("'issueloop/issue-'");
  });

  it('commands: new comments only, a job only for command bodies, one group per issue', async () => {
    const workflow = (await examples()).find((e) => e.file === 'issueloop-commands.yml')?.workflow;
    if (!workflow) throw new Error('issueloop-commands.yml is missing');
    expect(workflow.on).toEqual({ issue_comment: { types: ['created'] } });
    // The event it listens to is one the action follows (src/action/event.ts).
    const payload = commentPayload({ number: 3, comment: 1, body: '/issueloop retry', sender: 'maintainer' });
    expect(decide({ name: 'issue_comment', payload }, 'auto', 'issueloop')).toMatchObject({
      kind: 'issue',
      issue: 3,
      command: { name: 'retry' },
    });
    expect(workflow.concurrency.group).toBe(`issueloop-command-${expression('github.event.issue.number')}`);
  });

  it("commands: the job's if: lets every command through (/approve, /revise, /issueloop plan too) and no ordinary comment", async () => {
    const workflow = (await examples()).find((e) => e.file === 'issueloop-commands.yml')?.workflow;
    const job = Object.values(workflow?.jobs ?? {})[0] as { if?: string } | undefined;
    const commands: CommentCommand[] = ['retry', 'stop', 'plan', 'approve', 'revise'];
    for (const name of commands) {
      const body = name === 'revise' ? '/revise keep the old flag too' : commandText(name);
      expect(runsFor(job?.if, body), body).toBe(true);
      expect(runsFor(job?.if, body.toUpperCase()), body.toUpperCase()).toBe(true);
      // What the filter lets through is a command the action follows.
      const payload = commentPayload({ number: 3, comment: 1, body, sender: 'maintainer' });
      expect(decide({ name: 'issue_comment', payload }, 'auto', 'issueloop'), body).toMatchObject({
        command: { name },
      });
    }
    for (const body of ['thanks, looks good', 'I approve', '> /approve', 'see /issueloop retry']) {
      expect(runsFor(job?.if, body), body).toBe(false);
    }
  });

  it('drain: schedule and manual dispatch, one global group, the state directory cached', async () => {
    const { workflow } = (await examples()).find((e) => e.file === 'issueloop-drain.yml') as {
      workflow: Workflow;
    };
    expect(Object.keys(workflow.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(workflow.concurrency.group).not.toContain('${{');
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const cache = steps.find((s) => s.uses?.startsWith('actions/cache@'));
    expect(cache?.with?.path).toBe('.issueloop');
    // Restored before the action runs, or it is no use.
    expect(steps.indexOf(cache as Step)).toBeLessThan(
      steps.findIndex((s) => s.uses?.startsWith('issueloop/')),
    );
    const minutes = Object.values(workflow.jobs)[0]?.['timeout-minutes'] ?? 0;
    const budget = String(issueloopSteps(workflow)[0]?.with?.time_budget);
    expect(Number(/^(\d+)m$/.exec(budget)?.[1])).toBeLessThanOrEqual(minutes - 15);
  });

  it('are documented in the README, and CI checks that the bundle matches the source', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    for (const { file } of await examples()) expect(readme).toContain(`examples/workflows/${file}`);
    const ci = parse(await readFile(join(ROOT, '.github', 'workflows', 'ci.yml'), 'utf8')) as Workflow;
    const runs = Object.values(ci.jobs).flatMap((job) => job.steps.map((s) => s.run ?? ''));
    expect(runs).toContain('npm run bundle:check');
    expect(await readFile(join(ROOT, '.ci', 'run'), 'utf8')).toContain('npm run bundle:check');
  });
});

/** The smallest payload of each followed event, on issueloop/issue-3 of the repository itself. */
function followUpPayload(name: string, action: string): Record<string, unknown> {
  const branch = 'issueloop/issue-3';
  const repository = { full_name: 'octo-org/widgets' };
  const pull_request = { head: { ref: branch, repo: repository } };
  return {
    action,
    repository,
    check_suite: { head_branch: branch, pull_requests: [{ number: 9 }] },
    workflow_run: { head_branch: branch, head_repository: repository },
    ...(name.startsWith('pull_request') ? { pull_request } : {}),
  };
}

/**
 * Whether a job's `if:` runs for a comment with this body, for the one form the commands example
 * uses: `startsWith(github.event.comment.body, '<prefix>')` terms joined by `||` (GitHub's startsWith
 * ignores case). Any other expression fails the test rather than being guessed at.
 */
function runsFor(condition: string | undefined, body: string): boolean {
  const term = /^startsWith\(github\.event\.comment\.body, '([^']*)'\)$/;
  const prefixes = (condition ?? '').split('||').map((part) => {
    const prefix = term.exec(part.trim())?.[1];
    if (prefix === undefined) throw new Error(`unexpected term in the job's if: "${part.trim()}"`);
    return prefix.toLowerCase();
  });
  return prefixes.some((prefix) => body.toLowerCase().startsWith(prefix));
}
