import { connect } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { type RedisServer, startRedisServer } from '../../src/emulators/redis-server.js';

export { type RedisServer, startRedisServer };

/** One server for a test file: started before its tests, stopped after them. */
export function useRedisServer(): { readonly server: RedisServer } {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await startRedisServer();
  }, 20_000);
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get server() {
      if (!server) throw new Error('the Redis server is started in beforeAll');
      return server;
    },
  };
}

/**
 * `GET key` on the Redis at 127.0.0.1:`port`, as its raw RESP answer (`$-1\r\n` when the key is
 * absent): what an attack test reads to show a hostile command wrote nothing.
 */
export function redisGet(port: number, key: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('connect', () => socket.write(`*2\r\n$3\r\nGET\r\n$${key.length}\r\n${key}\r\n`));
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
      if (answer.endsWith('\r\n') && (answer.startsWith('$-1') || answer.split('\r\n').length >= 3)) {
        socket.end();
        resolve(answer);
      }
    });
    socket.on('error', reject);
  });
}
