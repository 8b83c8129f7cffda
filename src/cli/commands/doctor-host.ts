import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import type { LoadConfigOptions } from '../../config/load-config.js';
import { MIN_NODE, NODE_FIX, nodeSupported } from '../../run/node-version.js';
import type { Check } from './doctor-report.js';

/** The doctor's checks of the machine: Node, git, and whether it runs in a checkout. */

export function checkNode(version: string): Check {
  return nodeSupported(version)
    ? { name: 'node', status: 'ok', detail: `${version} (needs >= ${MIN_NODE.join('.')})` }
    : {
        name: 'node',
        status: 'fail',
        detail: `${version} is older than ${MIN_NODE.join('.')}`,
        fix: NODE_FIX,
      };
}

/** `run` works in a clone of the repository: doctor says so where it is not one (it used to pass). */
export async function checkCheckout(cwd: string, env: LoadConfigOptions['env']): Promise<Check | undefined> {
  try {
    const { stdout } = await promisify(execFile)('git', ['rev-parse', '--show-toplevel'], {
      cwd,
      timeout: 5_000,
      env: { ...env },
    });
    return { name: 'checkout', status: 'ok', detail: stdout.trim() };
  } catch (err) {
    // No git at all (the git check says so), or no such directory: nothing to add here.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || !existsSync(cwd)) return undefined;
    return {
      name: 'checkout',
      status: 'warn',
      detail: `${cwd} is not a git checkout: \`issueloop run\` works in a clone of the repository`,
      fix: 'run issueloop in a clone of the repository it works on (`git clone …`, then cd into it)',
    };
  }
}

export async function checkGit(env: LoadConfigOptions['env']): Promise<Check> {
  try {
    const { stdout } = await promisify(execFile)('git', ['--version'], { timeout: 5_000, env: { ...env } });
    return { name: 'git', status: 'ok', detail: stdout.trim() };
  } catch {
    return {
      name: 'git',
      status: 'fail',
      detail: 'git is not on PATH',
      fix: 'install git (e.g. `apt-get install git`)',
    };
  }
}
