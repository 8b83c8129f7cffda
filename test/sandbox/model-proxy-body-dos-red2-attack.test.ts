import { describe, expect, it } from 'vitest';
import { startModelProxy } from '../../src/sandbox/model-proxy.js';
import { MAX_JSON_VALUES } from '../../src/sandbox/model-tokens.js';
import { httpRequest } from '../helpers/http-request.js';

/**
 * Red team, round 2, against the model proxy's body inspection (model-request.ts): every allowed call's
 * body, up to the API's 32 MB, is parsed and re-serialized on the harness's one event loop before
 * anything else is weighed. A body of 11 million empty objects (`[{},{},…]`, sent by the agent with
 * the placeholder it holds, from inside the claude sandbox through MODEL_PORT) takes seconds of
 * JSON.parse and ~750 MB of heap: while it is read, no other session's egress proxy, model proxy,
 * GitHub call or lease renewal runs. 256 connections at a time (the cap) are 256 such stalls, and
 * 256 × 32 MB buffered. Measured on this machine: one body, 3.7 s of blocked event loop and 1.36 GB
 * RSS; eight at once, 25 s.
 */
const PLACEHOLDER = 'sk-ant-api03-placeholder-red2';

describe('red2: a 32 MB body of tiny JSON values at the model proxy', () => {
  // What once stalled the loop was JSON.parse of the whole body. The proof is that the body is refused
  // for its count of values before any parse (the reason names the bound, and admit(), which runs
  // after the parse, is never asked), not a timing: a wall-clock bound fails on a loaded machine.
  it('red2-model-proxy-parse-stall: such a body is refused for its count of JSON values before it is parsed', async () => {
    const admitted: string[] = [];
    const proxy = await startModelProxy({
      // Nothing is forwarded: the budget gate refuses every call once its body was inspected.
      upstream: 'http://127.0.0.1:9',
      credential: { scheme: 'x-api-key', value: 'sk-ant-api03-real' },
      clientKey: PLACEHOLDER,
      admit: (call) => {
        admitted.push(call);
        return { status: 400, type: 'invalid_request_error', message: 'not forwarded in this test' };
      },
    });
    const size = 32 * 1024 * 1024 - 64;
    const body = Buffer.from(
      `{"model":"claude-haiku-4-5","x":[${'{},'.repeat(Math.floor((size - 40) / 3))}{}]}`,
    );
    try {
      const answer = await httpRequest(
        {
          socketPath: proxy.socket,
          path: '/v1/messages',
          method: 'POST',
          headers: { 'x-api-key': PLACEHOLDER, 'content-type': 'application/json' },
        },
        body,
      );
      expect(answer.status).toBe(400);
      expect(answer.body).toContain(`a body of more than ${MAX_JSON_VALUES} JSON values`);
      expect(admitted).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
