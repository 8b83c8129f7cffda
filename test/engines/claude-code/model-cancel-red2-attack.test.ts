import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openModelAccess } from '../../../src/engines/claude-code/model-access.js';

/**
 * Red team, round 2, against the spend the model proxy records (model-usage.ts). A streamed answer
 * tells its output tokens at the end (`message_delta`); `message_start` says 1. A client that leaves
 * mid-stream has the proxy drop the upstream and record what it saw: 1 output token. The API bills
 * what it generated until it saw the cancellation. The agent (the claude role's shell holds the
 * placeholder and reaches MODEL_PORT) starts calls with a large `max_tokens`, reads for a while and
 * hangs up: each call's reservation is released, its output never counted, and `session.max_usd`
 * never reached however much is spent. The stand-in API here bills as the real one does: every
 * token it streamed before the client went away.
 */
const TOKENS_PER_DELTA = 50;

describe('red2: a streamed call cut off by its client', () => {
  it('red2-stream-cancel-uncounted: the output the API generated before the client left is counted', async () => {
    let billedOutput = 0;
    const upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const send = (event: string, data: unknown) =>
          res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        send('message_start', {
          type: 'message_start',
          message: { model: 'claude-opus-4-5', usage: { input_tokens: 20, output_tokens: 1 } },
        });
        billedOutput += 1;
        let sent = 0;
        const timer = setInterval(() => {
          if (res.destroyed) return clearInterval(timer);
          sent += 1;
          billedOutput += TOKENS_PER_DELTA;
          send('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'text_delta', text: 'lorem ipsum '.repeat(20) },
          });
          if (sent === 200) {
            clearInterval(timer);
            send('message_delta', {
              type: 'message_delta',
              usage: { output_tokens: 1 + sent * TOKENS_PER_DELTA },
            });
            res.end();
          }
        }, 5);
        res.on('close', () => clearInterval(timer));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const access = await openModelAccess({
      env: { ANTHROPIC_API_KEY: 'sk-ant-api03-real-0123456789', ANTHROPIC_BASE_URL: url },
      prices: {},
      tcp: false,
      budgetUsd: 5,
    });
    if (!access) throw new Error('no model access');
    try {
      const body = JSON.stringify({
        model: 'claude-opus-4-5',
        max_tokens: 32_000,
        stream: true,
        messages: [{ role: 'user', content: 'write at length' }],
      });
      // Read about half of the answer, then hang up.
      await new Promise<void>((resolve, reject) => {
        const req = request(
          {
            socketPath: access.socket,
            path: '/v1/messages',
            method: 'POST',
            headers: { 'x-api-key': access.placeholder, 'content-type': 'application/json' },
          },
          (res) => {
            let deltas = 0;
            res.on('data', (chunk: Buffer) => {
              deltas += chunk.toString('utf8').split('event: content_block_delta').length - 1;
              if (deltas >= 50) {
                req.destroy();
                resolve();
              }
            });
          },
        );
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        setTimeout(() => reject(new Error('no answer')), 10_000);
        req.end(body);
      });
      await access.idle();
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The client saw 50 deltas: the API generated (and bills) at least their tokens.
      expect(billedOutput).toBeGreaterThanOrEqual(1 + 50 * TOKENS_PER_DELTA);
      expect(access.spent().usage.output).toBeGreaterThanOrEqual(50 * TOKENS_PER_DELTA);
    } finally {
      await access.close();
      upstream.closeAllConnections();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });
});
