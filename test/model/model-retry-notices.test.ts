import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/core/random.js';
import { createAnthropicModel } from '../../src/model/anthropic-model.js';
import { createFailoverChain } from '../../src/model/failover.js';
import { createReliableCall } from '../../src/model/reliable-call.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';

const KEY = 'sk-ant-api03-retryNoticeKey0123456789';

async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('newcomer: while the model API cannot be reached, the user sees the retries', () => {
  it('says each retry of a refused model call at info level, with the failure, n/N and the wait the clock waits', async () => {
    const port = await refusedPort();
    const model = createAnthropicModel({ apiKey: KEY, baseURL: `http://127.0.0.1:${port}` });
    const clock = new FakeClock();
    const log = createMemoryLog();
    const call = createReliableCall({
      call: model.callModel,
      chain: createFailoverChain({ primary: 'claude-sonnet-5-5', fallbacks: [], now: () => clock.now() }),
      deps: { clock, random: createSeededRandom(3), log },
    });
    const failure = await call({
      model: 'claude-sonnet-5-5',
      system: ['s'],
      messages: [{ role: 'user', content: 'x' }],
      tools: [],
      maxTokens: 100,
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    const lines = log.entries.filter((e) => e.level === 'info' && /retrying/.test(e.msg ?? ''));
    // network: retried once, as design.md's rules say; the line says so and how long it waits.
    expect(lines).toHaveLength(clock.sleeps.length);
    expect(lines.length).toBeGreaterThan(0);
    lines.forEach((line, i) => {
      expect(line.msg).toMatch(
        new RegExp(`^model call: .*ECONNREFUSED.*; retrying ${i + 1}/${lines.length} in \\d+ s…$`),
      );
      expect(line.msg).toContain(`in ${Math.ceil((clock.sleeps[i] ?? 0) / 1000)} s…`);
    });
    expect(JSON.stringify(log.entries)).not.toContain(KEY);
  });
});
