import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtModule, runBuiltScript, SESSION_SANDBOXES } from '../helpers/built-sandbox-script.js';
import { scratchWorktree } from '../helpers/sandbox.js';

/**
 * Red team (issue 29): a descriptor issueloop itself inherited without close-on-exec (a make
 * jobserver's pipe, a socket systemd or a CI wrapper passed down, a terminal multiplexer's pipe) is
 * passed on by every spawn: through nsenter and bubblewrap into every sandboxed command, of every role.
 * Here the harness (the built dist/, in a child process as issueloop runs) is started with a pipe at
 * its fd 40 whose other end this test holds; each role's command writes its marker to fd 40. Whatever
 * arrives here came out of a sandbox. The same command unsandboxed writes it, so the check can fail.
 */
/** Above Node's own guard: at start it marks fds 0–15 and the run after them close-on-exec. */
const FD = 40;

const harness = `
import { join } from 'node:path';
const { UNSANDBOXED } = await import(${builtModule('sandbox/sandbox.js')});
const { runShell } = await import(${builtModule('agent/tools/run-shell.js')});
${SESSION_SANDBOXES}
const roles = {
  control: UNSANDBOXED,
  commands: sandboxes.commands,
  setup: await sandboxes.setup(),
  claude: await sandboxes.claude({ home: join(root, 'home'), homeBinds: [], readOnly: [] }),
};
const results = {};
for (const [role, sandbox] of Object.entries(roles)) {
  const result = await runShell('if [ -e /proc/self/fd/${FD} ]; then echo "pwned-by-' + role + '" >&${FD} && echo wrote; else echo no-fd-${FD}; fi', {
    cwd: worktree,
    env: { PATH: process.env.PATH },
    timeoutMs: 30000,
    maxOutputChars: 10000,
    signal: new AbortController().signal,
    sandbox,
  });
  results[role] = result.output.trim();
}
await sandboxes.close();
console.log(JSON.stringify(results));
`;

describe('descriptors the harness inherited', () => {
  it('red: a pipe issueloop inherited at fd 40 is writable from inside every role’s sandbox', async () => {
    const scratch = await scratchWorktree('issueloop-fds-');
    try {
      const { code, stdout, stderr, fdText: leaked } = await runBuiltScript(harness, scratch, FD);
      expect(code, stderr).toBe(0);
      const results = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, string>;
      // Control: the harness's own unconfined child does write through it.
      expect(results.control).toBe('wrote');
      expect(leaked).toContain('pwned-by-control');
      // Expected: nothing but stdin, stdout and stderr (and the namespace descriptors nsenter passes
      // on) reaches a sandboxed command.
      const roles = ['commands', 'setup', 'claude'] as const;
      expect(Object.fromEntries(roles.map((role) => [role, results[role]]))).toEqual(
        Object.fromEntries(roles.map((role) => [role, `no-fd-${FD}`])),
      );
      for (const role of roles) expect(leaked, role).not.toContain(`pwned-by-${role}`);
    } finally {
      rmSync(scratch.root, { recursive: true, force: true });
    }
  }, 120_000);
});
