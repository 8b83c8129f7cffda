import { delimiter, dirname } from 'node:path';
import { createScratchRepo, scratchGitEnv } from '../../../emulators/scratch-repo.js';

export const DEMO_OWNER = 'demo-org';
export const DEMO_REPO = 'widgets';

/** The command the demo's run uses as `verify.command`: the tiny project's own tests. */
export const DEMO_VERIFY_COMMAND = 'node test.js';

/**
 * The tiny project the demo's issues are about. Its tests pass on main, so whatever fails `verify` in
 * a branch was broken by that branch's change — the point the demo's second issue makes.
 */
export const DEMO_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify({ name: 'widgets', private: true, type: 'module', scripts: { test: DEMO_VERIFY_COMMAND } }, null, 2)}\n`,
  '.gitignore': '.issueloop/\n',
  // Committed like a real project's, so `issueloop status` in a kept checkout reads the same settings.
  'issueloop.config.yaml': [
    `repo: ${DEMO_OWNER}/${DEMO_REPO}`,
    '# Both issues in one round, then one empty round ends the run without waiting.',
    'workers: 2',
    'empty_rounds: 1',
    'poll_interval: 1s',
    'log_level: warn',
    'verify:',
    `  command: ${DEMO_VERIFY_COMMAND}`,
    '  retries: 1',
    'claims:',
    '  # One failure hands an issue to a human, so the broken one is not retried in this run.',
    '  max_failures: 1',
    '# The board the issues move across: Todo, In Progress, In Review, Done, Needs human.',
    'project:',
    `  owner: ${DEMO_OWNER}`,
    '  number: 1',
    '',
  ].join('\n'),
  'greet.js': "export const greet = (name) => 'helo, ' + name + '!';\n",
  'math.js': 'export const add = (a, b) => a + b;\n',
  'test.js': [
    '// The project tests: `node test.js` exits non-zero on the first failed assertion.',
    "import assert from 'node:assert/strict';",
    "import { greet } from './greet.js';",
    "import { add } from './math.js';",
    '',
    'assert.equal(add(2, 3), 5);',
    "assert.ok(greet('Ada').includes('Ada'));",
    "console.log('all tests passed');",
    '',
  ].join('\n'),
};

export interface DemoRepo {
  /** The bare repository standing in for GitHub's copy: the run fetches from and pushes to it. */
  origin: string;
  /** The clone the run works in (its cwd); the state directory `.issueloop/` lands here. */
  checkout: string;
  /** The whole environment of the run and of git: nothing of the caller's but PATH. */
  env: Record<string, string>;
}

/** Creates `root/origin.git` (bare) and `root/widgets` with the project committed and pushed to main. */
export async function createDemoRepo(root: string, callerPath: string | undefined): Promise<DemoRepo> {
  // The node running issueloop goes first, so `node test.js` finds it even when PATH does not.
  const path = [dirname(process.execPath), ...(callerPath ? [callerPath] : [])].join(delimiter);
  const env = await scratchGitEnv(root, {
    path,
    name: 'Demo Maintainer',
    email: 'maintainer@demo-org.example',
  });
  const repo = await createScratchRepo({
    root,
    name: DEMO_REPO,
    files: DEMO_FILES,
    message: 'widgets: greet() and add(), with tests',
    env,
  });
  return { ...repo, env };
}
