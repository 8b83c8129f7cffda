import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandSandbox } from '../../src/sandbox/sandbox.js';
import type { WorktreeSandboxes } from '../../src/sandbox/sandbox-host.js';
import { HOST_PATH, scratchSandboxes, shellIn } from '../helpers/sandbox.js';

/**
 * The seccomp filter (seccomp.ts) inside a real sandbox: the address families a network namespace
 * does not confine fail as on a kernel without them, io_uring is missing, and the tools the agent
 * uses still work (the egress proxy is reached over AF_INET; nothing leaves loopback).
 */
let root: string;
let worktree: string;
let sandboxes: WorktreeSandboxes;

const FAMILIES = `
import ctypes, socket
families = {"AF_UNIX": 1, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16, "AF_PACKET": 17,
  "AF_VSOCK": 40, "AF_BLUETOOTH": 31, "AF_ALG": 38, "AF_KEY": 15, "AF_XDP": 44, "AF_CAN": 29, "AF_TIPC": 30}
for name, family in families.items():
    kind = socket.SOCK_RAW if name in ("AF_NETLINK", "AF_PACKET", "AF_KEY", "AF_CAN", "AF_XDP") else socket.SOCK_STREAM
    if name == "AF_ALG": kind = socket.SOCK_SEQPACKET
    if name == "AF_BLUETOOTH": kind = socket.SOCK_STREAM
    try:
        socket.socket(family, kind, 0).close(); print(name, "ok")
    except OSError as e:
        print(name, e.errno)
try:
    socket.socketpair(40, socket.SOCK_STREAM); print("socketpair-vsock ok")
except OSError as e:
    print("socketpair-vsock", e.errno)
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
print("io_uring_setup", libc.syscall(425, 8, params), ctypes.get_errno())
`;

beforeAll(async () => {
  ({ root, worktree, sandboxes } = await scratchSandboxes('issueloop-families-', {
    files: { 'families.py': FAMILIES },
  }));
}, 60_000);

afterAll(async () => {
  await sandboxes?.close();
  rmSync(root, { recursive: true, force: true });
});

const run = (command: string, sandbox: CommandSandbox) =>
  shellIn(sandbox, worktree, command, { PATH: HOST_PATH });

describe('socket families inside the sandbox', () => {
  it('makes AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK sockets and refuses the others with EAFNOSUPPORT', async () => {
    const result = await run('python3 families.py', sandboxes.commands);
    expect(result.exitCode, result.output).toBe(0);
    const lines = Object.fromEntries(
      result.output
        .trim()
        .split('\n')
        .map((line) => line.split(' ')),
    );
    for (const name of ['AF_UNIX', 'AF_INET', 'AF_INET6', 'AF_NETLINK']) expect(lines[name], name).toBe('ok');
    for (const name of [
      'AF_PACKET',
      'AF_VSOCK',
      'AF_BLUETOOTH',
      'AF_ALG',
      'AF_KEY',
      'AF_XDP',
      'AF_CAN',
      'AF_TIPC',
    ])
      expect(lines[name], name).toBe('97');
    expect(lines['socketpair-vsock']).toBe('97');
    expect(result.output).toContain('io_uring_setup -1 38');
  });

  it('still runs node, git and curl through the egress proxy, in every role', async () => {
    const claude = await sandboxes.claude({ home: join(root, 'home'), homeBinds: [], readOnly: [] });
    for (const sandbox of [sandboxes.commands, await sandboxes.setup(), claude]) {
      const result = await run(
        [
          `node -e "require('node:net').createServer().listen(0, '127.0.0.1', function () { console.log('node ok'); this.close(); })"`,
          'git status --short >/dev/null && echo git ok',
          // The proxy refuses the name (no allowlist has it) before any lookup: a 403 is the proof that
          // curl reached it.
          'curl -s -o /dev/null -w "curl %{http_connect}\\n" -x http://127.0.0.1:3128 https://refused.invalid/ || true',
        ].join('; '),
        sandbox,
      );
      expect(result.output, result.output).toContain('node ok');
      expect(result.output).toContain('git ok');
      expect(result.output).toContain('curl 403');
    }
  }, 60_000);
});
