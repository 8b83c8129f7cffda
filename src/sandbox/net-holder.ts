import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapArgs, type Mount } from './bwrap-args.js';
import { MAX_CONNECTIONS } from './domain-proxy.js';
import { installationOf, systemMounts } from './host-paths.js';

/**
 * A session role's network: a network namespace with only loopback, kept alive by one long-lived
 * bubblewrap process of the harness's (the holder) in which a bridge listens on 127.0.0.1 and pipes
 * every connection to a Unix socket on the host (the role's egress proxy, and for `claude` the model
 * proxy). Each sandboxed command joins that namespace with nsenter before bubblewrap makes the rest
 * of its sandbox, instead of starting a bridge of its own (~70 ms a call). The harness holds the
 * namespace by descriptor, checked once against the holder's own report: a command never joins a
 * namespace by PID, which a dead holder's successor could reuse.
 */

/** Where the holder shows its sockets and the bridge's source. */
const RUN_DIR = '/run/issueloop';
const BRIDGE_PATH = `${RUN_DIR}/bridge.mjs`;

/** Listens on 127.0.0.1:<port> for every `<port>=<socket>` argument; says `ready` once all listen. */
export const BRIDGE_SOURCE = `import { connect, createServer } from 'node:net';
const pairs = process.argv.slice(2).map((arg) => arg.split('='));
let pending = pairs.length;
for (const [port, socket] of pairs) {
  const server = createServer((client) => {
    const upstream = connect(socket);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  server.maxConnections = ${MAX_CONNECTIONS};
  server.listen(Number(port), '127.0.0.1', () => {
    pending -= 1;
    if (pending === 0) process.stdout.write('ready\\n');
  });
}
`;

let bridgeFile: string | undefined;
/** The bridge's source in a file (the action's single-file bundle ships it as a string). */
function bridgeScript(): string {
  if (bridgeFile === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'issueloop-bridge-'));
    bridgeFile = join(dir, 'bridge.mjs');
    writeFileSync(bridgeFile, BRIDGE_SOURCE, { mode: 0o444, flag: 'wx' });
  }
  return bridgeFile;
}

export interface NetHolder {
  /** The holder's bubblewrap process on the host (for the harness's own diagnostics and tests). */
  readonly pid: number | undefined;
  /**
   * The command that runs `file args` inside the namespace: nsenter joining it through two fresh
   * descriptors of the harness's (`held`, close-on-exec, for the spawner to keep until the child ends),
   * which it opens as `/proc/<harness>/fd/<n>`: passed to nsenter as descriptors, they stayed open in
   * every sandboxed command.
   */
  enter(file: string, args: readonly string[]): { file: string; args: string[]; held: number[] };
  /** Stops the bridge; the namespace goes once no command is in it. */
  close(): Promise<void>;
}

export interface HolderOptions {
  bwrap: string;
  nsenter: string;
  /** `port` inside → Unix socket on the host. */
  ports: ReadonlyArray<{ port: number; socket: string }>;
  /** At most this long to start (default 15 s). */
  timeoutMs?: number;
  /** Told when the holder ends before `close()`: its role has no way out any more (fails closed). */
  onLost?: (why: string) => void;
}

function holderArgs(options: HolderOptions): string[] {
  const node = realpathSync(process.execPath);
  const nodeDir = installationOf(node);
  const mounts: Mount[] = [
    ...systemMounts(),
    { kind: 'ro-bind', source: nodeDir, dest: nodeDir },
    { kind: 'tmpfs', dest: '/tmp' },
    { kind: 'ro-bind', source: bridgeScript(), dest: BRIDGE_PATH },
    ...options.ports.map(
      ({ port, socket }): Mount => ({ kind: 'bind', source: socket, dest: `${RUN_DIR}/${port}.sock` }),
    ),
  ];
  const argv = [node, BRIDGE_PATH, ...options.ports.map(({ port }) => `${port}=${RUN_DIR}/${port}.sock`)];
  // No --disable-userns here: the commands make their own user namespace inside this one.
  const args = bwrapArgs({ mounts, network: 'own', cwd: '/', argv, userns: 'allow' });
  return ['--info-fd', '3', ...args];
}

/** The holder's report on fd 3 (bwrap's --info-fd), then its bridge's `ready` on stdout. */
async function started(
  child: ChildProcess,
  timeoutMs: number,
): Promise<{ pid: number; net: number | undefined }> {
  let info = '';
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  // bwrap writes its report and closes the descriptor before the bridge starts; both are awaited,
  // since two pipes are read in no given order.
  const reported = new Promise<void>((resolve) => {
    child.stdio[3]?.on('data', (chunk: Buffer) => {
      info += chunk.toString('utf8');
    });
    child.stdio[3]?.once('end', () => resolve());
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('ready\n')) resolve();
    });
    child.once('error', (e) => reject(e));
    child.once('exit', (code) => {
      reject(new Error(`the network holder exited (${code}): ${err.trim() || 'no output'}`));
    });
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the network holder did not start: ${err}`)), timeoutMs);
  });
  try {
    await Promise.race([Promise.all([reported, ready]), deadline]);
  } finally {
    clearTimeout(timer);
  }
  const report = JSON.parse(info) as { 'child-pid'?: number; 'net-namespace'?: number };
  if (typeof report['child-pid'] !== 'number')
    throw new Error(`the network holder's report is incomplete: ${info}`);
  // bubblewrap before 0.5 reports the child's PID alone.
  return { pid: report['child-pid'], net: report['net-namespace'] };
}

export async function startNetHolder(options: HolderOptions): Promise<NetHolder> {
  const child = spawn(options.bwrap, holderArgs(options), {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { PATH: '/usr/bin:/bin' },
  });
  let held: number[] = [];
  try {
    const { pid, net } = await started(child, options.timeoutMs ?? 15_000);
    held = [openSync(`/proc/${pid}/ns/user`, 'r'), openSync(`/proc/${pid}/ns/net`, 'r')];
    const [userFd, netFd] = held as [number, number];
    // The namespace the descriptor holds is the one bubblewrap made, and not the harness's own.
    const joined = fstatSync(netFd).ino;
    if ((net !== undefined && joined !== net) || joined === statSync('/proc/self/ns/net').ino)
      throw new Error('the network holder is not in a network namespace of its own');
    if (fstatSync(userFd).ino === statSync('/proc/self/ns/user').ino)
      throw new Error('the network holder is not in a user namespace of its own');
  } catch (err) {
    child.kill('SIGKILL');
    for (const fd of held) closeSync(fd);
    throw err;
  }
  child.stdout?.resume();
  child.stderr?.resume();
  // Like the proxies, the holder never keeps the harness alive; it dies with it (--die-with-parent).
  child.unref();
  for (const stream of [child.stdout, child.stderr, child.stdio[3]]) (stream as Socket | null)?.unref();
  const [userFd, netFd] = held as [number, number];
  let closed = false;
  child.once('exit', (code, signal) => {
    if (!closed) options.onLost?.(`the network holder ended (${signal ?? `exit ${code}`})`);
  });
  return {
    pid: child.pid,
    enter(file, args) {
      if (closed) throw new Error('the network holder is closed');
      const held = [openSync(`/proc/self/fd/${userFd}`, 'r'), openSync(`/proc/self/fd/${netFd}`, 'r')];
      const [user, net] = held as [number, number];
      return {
        file: options.nsenter,
        args: [
          `--user=/proc/${process.pid}/fd/${user}`,
          `--net=/proc/${process.pid}/fd/${net}`,
          '--preserve-credentials',
          '--',
          file,
          ...args,
        ],
        held,
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const fd of held) closeSync(fd);
      if (child.exitCode !== null || child.signalCode !== null) return;
      // Referenced again, so that the harness waits for the holder's end it asked for.
      child.ref();
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
    },
  };
}
