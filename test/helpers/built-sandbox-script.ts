import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ScratchWorktree } from './sandbox.js';

/** A module of the built dist/, as an import specifier for a script run in a child process. */
export function builtModule(path: string): string {
  return JSON.stringify(join(process.cwd(), 'dist', path));
}

/** The variable that hands a `scratchWorktree` (as JSON) to the child's script. */
const SCRATCH_ENV = 'ISSUELOOP_TEST_SCRATCH';

/**
 * Lines of an ES module script (run by `runBuiltScript`, from the built dist/) that take the scratch
 * checkout the test made, probe bubblewrap and open the session's sandboxes for issue 1's worktree:
 * `root`, `worktree` and `sandboxes` are in scope after them.
 */
export const SESSION_SANDBOXES = `
const { probeSandbox } = await import(${builtModule('sandbox/probe.js')});
const { createSandboxHost } = await import(${builtModule('sandbox/sandbox-host.js')});
const { root, worktree, dirs, agentGitDir } = JSON.parse(process.env.${SCRATCH_ENV});
const probe = await probeSandbox(process.env);
if (!probe.ok) throw new Error(probe.problem);
const host = createSandboxHost({ mode: 'os', network: 'none', read_only: [] }, probe.facts);
const sandboxes = await host.forWorktree({ worktree, git: dirs, agentGitDir });
`;

/**
 * `script` (an ES module) run by a child `node`, as issueloop's own entrypoint would start, with only
 * PATH, HOME and the scratch checkout in its environment, and an inheritable pipe at its descriptor
 * `fd` besides stdout and stderr: its exit code, its output, and what it wrote to `fd`.
 */
export async function runBuiltScript(
  script: string,
  scratch: ScratchWorktree,
  fd: number,
): Promise<{ code: number | null; stdout: string; stderr: string; fdText: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/root',
      [SCRATCH_ENV]: JSON.stringify(scratch),
    },
    stdio: ['ignore', 'pipe', 'pipe', ...Array<'ignore'>(fd - 3).fill('ignore'), 'pipe'],
  });
  const text = { stdout: '', stderr: '', fdText: '' };
  const collect = (stream: Readable | null | undefined, key: keyof typeof text) =>
    stream?.on('data', (chunk: Buffer) => {
      text[key] += chunk.toString('utf8');
    });
  collect(child.stdout, 'stdout');
  collect(child.stderr, 'stderr');
  collect((child.stdio as unknown as Readable[])[fd], 'fdText');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, ...text };
}
