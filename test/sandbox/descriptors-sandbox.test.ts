import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtModule, runBuiltScript, SESSION_SANDBOXES } from '../helpers/built-sandbox-script.js';
import { scratchWorktree } from '../helpers/sandbox.js';

/**
 * What a sandboxed command holds when the harness inherited nothing (the entrypoints close what it
 * did, descriptors.ts): stdin, stdout, stderr, and no namespace descriptor of its session (nsenter
 * opens those by path, through the harness's own), with no prelude on the way. Built dist/, in a child
 * process with an inheritable pipe at fd 40, as issueloop's own entrypoint would start.
 */
const FD = 40;

const harness = `
import { join } from 'node:path';
const { closeInheritedDescriptors } = await import(${builtModule('sandbox/descriptors.js')});
const closed = closeInheritedDescriptors();
const { runShell } = await import(${builtModule('agent/tools/run-shell.js')});
${SESSION_SANDBOXES}
const roles = {
  commands: sandboxes.commands,
  setup: await sandboxes.setup(),
  claude: await sandboxes.claude({ home: join(root, 'home'), homeBinds: [], readOnly: [] }),
};
const results = {};
for (const [role, sandbox] of Object.entries(roles)) {
  const wrapped = sandbox.wrap(['true'], worktree, {});
  for (const fd of wrapped.fds ?? []) (await import('node:fs')).closeSync(fd);
  for (const fd of wrapped.held ?? []) (await import('node:fs')).closeSync(fd);
  const result = await runShell('cd /proc/self/fd && for f in *; do echo "$f $(readlink $f)"; done', {
    cwd: worktree,
    env: { PATH: process.env.PATH },
    timeoutMs: 30000,
    maxOutputChars: 10000,
    signal: new AbortController().signal,
    sandbox,
  });
  results[role] = { fds: result.output.trim().split('\\n'), prelude: wrapped.args.includes('-p') };
}
await sandboxes.close();
console.log(JSON.stringify({ closed, results }));
`;

describe('descriptors a sandboxed command holds', () => {
  it('none of the harness’s and no namespace of the session’s, with no prelude once the entrypoint closed what it inherited', async () => {
    const scratch = await scratchWorktree('issueloop-fds-');
    try {
      const { code, stdout, stderr } = await runBuiltScript(harness, scratch, FD);
      expect(code, stderr).toBe(0);
      const { closed, results } = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
        closed: number[];
        results: Record<string, { fds: string[]; prelude: boolean }>;
      };
      expect(closed).toContain(FD);
      for (const role of ['commands', 'setup', 'claude']) {
        const held = results[role];
        expect(held?.prelude, role).toBe(false);
        // 0–2 and the shell's own 3 (the glob's directory, then $(readlink)'s pipe): a descriptor passed
        // on would be at another number (the harness's 40, a runner's 251, the namespaces' 4 and 5).
        expect(
          held?.fds.map((line) => line.split(' ')[0]),
          role,
        ).toEqual(['0', '1', '2', '3']);
        expect(held?.fds.join('\n'), role).not.toMatch(/user:|net:/);
      }
    } finally {
      rmSync(scratch.root, { recursive: true, force: true });
    }
  }, 120_000);
});
