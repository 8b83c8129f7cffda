import { describe, expect, it } from 'vitest';
import { reply } from '../../src/emulators/anthropic/index.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { useRunFixture } from './run-fixture.js';

const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });

/** The agent fixes the typo and adds a workflow, as an issue could talk it into. */
const fixAndAddWorkflow = reply.toolUse([
  {
    name: 'str_replace_based_edit_tool',
    input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
  },
  {
    name: 'str_replace_based_edit_tool',
    input: { command: 'create', path: '.github/workflows/exfil.yml', file_text: 'on: push\n' },
  },
]);

const ARGS = [
  'run',
  '--repo',
  'octo-org/widgets',
  '--set',
  'empty_rounds=1',
  '--set',
  'poll_interval=1s',
  '--set',
  'verify.command=grep -q "\'hello\'" greet.js',
  '--set',
  'log_level=warn',
];

describe('issueloop run with protected_paths: []', () => {
  it('warns at the start of the run, and delivers the workflow change', { timeout: 60_000 }, async () => {
    const number = run.github.addIssue({
      title: 'Greeting typo',
      body: 'greet() says helo',
      author: 'octocat',
      authorAssociation: 'MEMBER',
      labels: ['issueloop'],
    });
    const { env } = await run.start((request) =>
      request.messages.length === 1 ? fixAndAddWorkflow : reply.text('Fixed.'),
    );
    const result = await runInProcess([...ARGS, '--set', 'protected_paths=[]'], {
      cwd: run.fx.checkout,
      env,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('protected_paths: [] turns off the defaults (.github/workflows/**');
    expect(result.stdout).toMatch(new RegExp(`#${number}\\s+resolved`));
    const branch = `issueloop/issue-${number}`;
    expect(
      run.fx.git(run.fx.root, '--git-dir', run.fx.origin, 'show', `${branch}:.github/workflows/exfil.yml`),
    ).toBe('on: push');
  });
});
