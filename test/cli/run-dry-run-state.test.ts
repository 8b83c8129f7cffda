import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../../src/emulators/anthropic/index.js';
import { STACK_FRAME } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { useRunFixture } from './run-fixture.js';

const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });

const FIX =
  'is a file, but issueloop needs a directory there for its state; move the file away or point ' +
  'state_dir (issueloop.config.yaml, ISSUELOOP_STATE_DIR or --set state_dir=<dir>) at another directory';

describe('newcomer: run --dry-run with a state directory that is a file exits 2 with the fix', () => {
  it.each([
    ['the default .issueloop', '.issueloop', []],
    ['state_dir set with --set', 'state-file', ['--set', 'state_dir=state-file']],
  ])(
    'run --dry-run with a state directory that is a file (%s) exits 2 with the fix, as status does',
    async (_name, file, args) => {
      run.github.addIssue({
        title: 'First',
        body: 'greet() says helo',
        author: 'octocat',
        authorAssociation: 'MEMBER',
        labels: ['issueloop'],
      });
      const { env } = await run.start(() => reply.text('never asked'));
      const stateFile = join(run.fx.checkout, file);
      await writeFile(stateFile, 'not a directory\n');
      const common = ['--repo', 'octo-org/widgets', ...args];
      const result = await runInProcess(['run', '--dry-run', ...common], { cwd: run.fx.checkout, env });
      expect(result).toMatchObject({ code: 2, stdout: '', stderr: `issueloop: ${stateFile} ${FIX}\n` });
      expect(result.stderr).not.toMatch(STACK_FRAME);
      // The same words as `status` in the same checkout.
      const status = await runInProcess(['status', ...common], { cwd: run.fx.checkout, env });
      expect(status).toMatchObject({ code: 2, stderr: result.stderr });
    },
  );
});
