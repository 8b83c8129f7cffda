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
