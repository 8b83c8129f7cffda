import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openModelAccess } from '../../../src/engines/claude-code/model-access.js';
import {
  budgetGate,
  MAX_OUTPUT_TOKENS,
  worstCaseUsd,
} from '../../../src/engines/claude-code/model-budget.js';
import type { Admission } from '../../../src/sandbox/model-proxy.js';
import { httpRequest } from '../../helpers/http-request.js';

const HAIKU = { model: 'claude-haiku-4-5', maxTokens: 1000, bytes: 1000 };
const MESSAGES = 'POST /v1/messages';

function gate(budgetUsd: number | undefined) {
  let spent = 0;
  let over = 0;
  const g = budgetGate({
    budgetUsd,
    prices: {},
    spentUsd: () => spent,
    onOver: () => {
      over += 1;
      return 'spent';
    },
  });
  return { g, spend: (usd: number) => (spent += usd), over: () => over };
}

const released = (a: Admission) => {
  if (!a || 'status' in a) throw new Error(`not admitted: ${JSON.stringify(a)}`);
  return a;
};
const settled = async (p: Promise<unknown>) =>
  Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), 30))]);

describe('session.max_usd: reservations for the calls in flight', () => {
  it('prices the worst case: the body as cache-written input, max_tokens (or any model’s most) of output, at the dearest line for an unknown model', () => {
    // haiku: $1 in, $5 out per million; 1-hour cache writes (the dearest input) at 2×.
    expect(worstCaseUsd(HAIKU, {})).toBeCloseTo((1000 * 2 + 1000 * 5) / 1e6, 9);
    expect(worstCaseUsd({ bytes: 0 }, {})).toBeCloseTo((MAX_OUTPUT_TOKENS * 25) / 1e6, 9);
  });

  it('admits concurrent calls while their reservations fit, and holds the next until one ends', async () => {
    const worst = worstCaseUsd(HAIKU, {});
    const { g } = gate(worst * 2.5);
    const a = released(await g.admit(MESSAGES, HAIKU));
    const b = released(await g.admit(MESSAGES, HAIKU));
    expect(g.reserved()).toBeCloseTo(worst * 2, 9);
    const third = g.admit(MESSAGES, HAIKU);
    expect(await settled(third)).toBe(false);
    a.release();
    a.release(); // once only
    released(await third);
    b.release();
    expect(g.reserved()).toBeCloseTo(worst, 9);
  });

  it('a held call is refused (400) once the calls ahead spent the budget, and counted', async () => {
    const { g, spend, over } = gate(1);
    const big = { model: 'claude-opus-4-1', maxTokens: 32_000, bytes: 200_000 };
    const first = released(await g.admit(MESSAGES, big));
    const held = g.admit(MESSAGES, big);
    expect(await settled(held)).toBe(false);
    spend(1.5);
    first.release();
    expect(await held).toMatchObject({ status: 400, type: 'invalid_request_error' });
    expect(over()).toBe(1);
  });

  it('one call alone always runs while budget is left, however dear its worst case; count_tokens is not held', async () => {
    const { g } = gate(0.01);
    const alone = released(await g.admit(MESSAGES, { bytes: 10 }));
    expect(await g.admit('POST /v1/messages/count_tokens', { bytes: 10 })).toBeUndefined();
    alone.release();
    expect(await gate(undefined).g.admit(MESSAGES, HAIKU)).toBeUndefined();
  });
});

describe('session.max_usd at the model proxy, with calls in flight together', () => {
  it('forwards concurrent calls whose reservations fit at once, and holds the rest until usage is known', async () => {
    let open = 0;
    let most = 0;
    const upstream = createServer((req, res) => {
      open += 1;
      most = Math.max(most, open);
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          open -= 1;
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(
              JSON.stringify({ model: 'claude-haiku-4-5', usage: { input_tokens: 10, output_tokens: 10 } }),
            );
        }, 100),
      );
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const body = JSON.stringify({
      model: 'claude-haiku-4-5',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const worst = worstCaseUsd(
      { model: 'claude-haiku-4-5', maxTokens: 1000, bytes: Buffer.byteLength(body) },
      {},
    );
    // Room for three reservations at a time, and plenty of budget for all six calls' real cost.
    const access = await openModelAccess({
      env: { ANTHROPIC_API_KEY: 'sk-ant-api03-real-0123456789', ANTHROPIC_BASE_URL: url },
      prices: {},
      tcp: false,
      budgetUsd: worst * 3.5,
    });
    if (!access) throw new Error('no model access');
    const post = () =>
      httpRequest(
        {
          socketPath: access.socket,
          path: '/v1/messages',
          method: 'POST',
          headers: { 'x-api-key': access.placeholder, 'content-type': 'application/json' },
        },
        body,
      ).then((answer) => answer.status);
    try {
      expect(await Promise.all(Array.from({ length: 6 }, post))).toEqual([200, 200, 200, 200, 200, 200]);
      expect(most).toBe(3);
      expect(access.spent().responses).toBe(6);
    } finally {
      await access.close();
      upstream.closeAllConnections();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });
});
