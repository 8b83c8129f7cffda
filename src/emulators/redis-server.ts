import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real `redis-server` (Debian's) of its own, for the Redis claim store's tests and benchmark:
 * loopback only, a free port, its own data directory with an append-only file fsynced on every write
 * (as durable per operation as the file store, and kept across `restart()` as a production server
 * configured for claims should).
 */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
  /** Stops the server and starts it again on the same port and data. */
  restart(): Promise<void>;
}

/** The redis-server binary, or undefined when it is not installed. */
export function findRedisServer(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Resolves once the server answers PING with PONG. */
async function waitForPong(port: number, deadline: number): Promise<void> {
  for (;;) {
    const pong = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write('PING\r\n'));
      socket.setEncoding('utf8');
      socket.on('data', (data: string) => {
        socket.destroy();
        resolve(data.startsWith('+PONG'));
      });
      socket.on('error', () => resolve(false));
    });
    if (pong) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startRedisServer(): Promise<RedisServer> {
  const binary = findRedisServer();
  if (!binary) {
    throw new Error(
      'redis-server is not installed: `apt-get install redis-server` (bash .ci/run installs it when absent)',
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'issueloop-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
    ...['--appendonly', 'yes', '--appendfsync', 'always', '--save', ''],
    ...['--daemonize', 'no', '--logfile', join(dir, 'redis.log')],
  ];
  const start = async () => {
    child = spawn(binary, args, { stdio: 'ignore' });
    await waitForPong(port, Date.now() + 10_000);
  };
  const halt = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      await halt();
      await rm(dir, { recursive: true, force: true });
    },
    async restart() {
      await halt();
      await start();
    },
  };
}
