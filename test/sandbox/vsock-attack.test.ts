import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorktreeSandboxes } from '../../src/sandbox/sandbox-host.js';
import { HOST_PATH, scratchSandboxes, shellIn } from '../helpers/sandbox.js';

/**
 * Red team (issue 29): a network namespace confines IP, Unix and netlink sockets, not AF_VSOCK,
 * whose ports are the kernel's, one table for the whole machine. In a VM (Firecracker, Kata, WSL2, a
 * cloud VM with a host agent) the hypervisor's services are at CID 2, one `connect()` away, past the
 * egress proxy; and a sandbox can listen for the host on a vsock port too. Nothing here connects
 * anywhere: the harness (this test, unsandboxed) binds a vsock port and each role's command tries to
 * bind the same one. EADDRINUSE inside is the evidence that the sandbox's vsock is the host's.
 * Without vsock on the machine at all, socket() fails inside and the expectation holds.
 */
let root: string;
let worktree: string;
let sandboxes: WorktreeSandboxes;
let holder: ChildProcess | undefined;
const PORT = 40_000 + (process.pid % 20_000);

const HOLD = `
import socket, sys, time
try:
    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
    s.bind((socket.VMADDR_CID_ANY, int(sys.argv[1])))
    print("bound", flush=True)
except OSError as e:
    print("no-vsock", e.errno, flush=True)
time.sleep(600)
`;

const TRY = `
import socket, sys
try:
    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
except OSError as e:
    print("socket refused", e.errno); sys.exit(0)
try:
    s.bind((socket.VMADDR_CID_ANY, int(sys.argv[1])))
    print("bound")
except OSError as e:
    print("bind", e.errno)
`;

let held = '';

beforeAll(async () => {
  ({ root, worktree, sandboxes } = await scratchSandboxes('issueloop-vsock-', {
    files: { 'vsock.py': TRY },
  }));
  const child = spawn('python3', ['-c', HOLD, String(PORT)], { stdio: ['ignore', 'pipe', 'inherit'] });
  holder = child;
  held = await new Promise<string>((resolve) => {
    child.stdout?.setEncoding('utf8').once('data', (line: string) => resolve(line.trim()));
  });
}, 60_000);

afterAll(async () => {
  holder?.kill('SIGKILL');
  await sandboxes?.close();
  rmSync(root, { recursive: true, force: true });
});

describe.each(['commands', 'setup', 'claude'] as const)('the %s role', (role) => {
  it('red: opens AF_VSOCK sockets in the host’s vsock namespace (a port the harness holds is in use inside)', async () => {
    const sandbox =
      role === 'claude'
        ? await sandboxes.claude({ home: join(root, 'home'), homeBinds: [], readOnly: [] })
        : role === 'setup'
          ? await sandboxes.setup()
          : sandboxes.commands;
    const result = await shellIn(
      sandbox,
      worktree,
      `python3 vsock.py ${PORT}`,
      { PATH: HOST_PATH },
      { maxOutputChars: 1000 },
    );
    expect(result.exitCode, result.output).toBe(0);
    if (held === 'bound') {
      // The evidence that the check below can fail here: 98 is EADDRINUSE.
      expect(['bind 98', 'socket refused 1', 'socket refused 97']).toContain(result.output.trim());
    }
    expect(result.output.trim()).toMatch(/^socket refused/);
  });
});
