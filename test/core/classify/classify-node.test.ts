import { setTimeout as delay } from 'node:timers/promises';
import { errors as undiciErrors } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyError } from '../../../src/core/classify/classify-error.js';
import {
  closedPort,
  type ScriptedServer,
  startServer,
  startSilentServer,
} from '../../helpers/scripted-server.js';

/** Node system errors and fetch (undici) failures, produced for real where the machine allows. */

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function fetchError(url: string, init?: RequestInit): Promise<unknown> {
  try {
    await fetch(url, init);
  } catch (err) {
    return err;
  }
  throw new Error('expected fetch to fail');
}

/** The shape Node gives a failed system call (see `SystemError` in Node's docs). */
function systemError(code: string, syscall: string, message: string): Error {
  return Object.assign(new Error(message), { code, syscall, errno: -1 });
}

describe('classifyError on Node and undici errors', () => {
  it('fetch to a refused port → network (TypeError "fetch failed" with ECONNREFUSED cause)', async () => {
    const err = await fetchError(`http://127.0.0.1:${await closedPort()}/`);
    const result = classifyError(err);
    expect([result.errorClass, result.action, result.retryAfterMs, result.source]).toEqual([
      'network',
      'retry_once',
      undefined,
      'network',
    ]);
    expect(result.message).toMatch(
      /^connect ECONNREFUSED 127\.0\.0\.1:\d+ \(connection refused: nothing listens there\)$/,
    );
  });

  it('a server that drops the socket → network (UND_ERR_SOCKET)', async () => {
    server = await startServer((req) => req.socket.destroy());
    const result = classifyError(await fetchError(server.url));
    expect([result.errorClass, result.action]).toEqual(['network', 'retry_once']);
  });

  it('AbortSignal.timeout on fetch → timeout (DOMException TimeoutError)', async () => {
    server = await startSilentServer();
    const result = classifyError(await fetchError(server.url, { signal: AbortSignal.timeout(50) }));
    expect([result.errorClass, result.action, result.retryable]).toEqual(['timeout', 'retry_once', true]);
  });

  it('an aborted fetch → aborted, not retryable', async () => {
    server = await startSilentServer();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const result = classifyError(await fetchError(server.url, { signal: controller.signal }));
    expect([result.errorClass, result.action, result.retryable]).toEqual(['aborted', 'fail_fast', false]);
  });

  it('an aborted timers/promises sleep → aborted', async () => {
    const controller = new AbortController();
    const pending = delay(10_000, undefined, { signal: controller.signal }).catch((err: unknown) => err);
    controller.abort();
    expect(classifyError(await pending).errorClass).toBe('aborted');
  });

  it('undici HeadersTimeoutError inside "fetch failed" → timeout', () => {
    const err = new TypeError('fetch failed', { cause: new undiciErrors.HeadersTimeoutError() });
    const result = classifyError(err);
    expect([result.errorClass, result.action]).toEqual(['timeout', 'retry_once']);
  });

  it('undici ConnectTimeoutError → timeout', () => {
    const result = classifyError(
      new TypeError('fetch failed', { cause: new undiciErrors.ConnectTimeoutError() }),
    );
    expect(result.errorClass).toBe('timeout');
  });

  it('ETIMEDOUT system error → timeout', () => {
    const result = classifyError(systemError('ETIMEDOUT', 'connect', 'connect ETIMEDOUT 140.82.112.6:443'));
    expect([result.errorClass, result.action, result.retryAfterMs]).toEqual([
      'timeout',
      'retry_once',
      undefined,
    ]);
  });

  it('ENOTFOUND (DNS) → network', () => {
    const err = systemError('ENOTFOUND', 'getaddrinfo', 'getaddrinfo ENOTFOUND api.github.com');
    expect(classifyError(err).errorClass).toBe('network');
  });

  it('EAI_AGAIN (DNS temporary failure) → network', () => {
    const err = systemError('EAI_AGAIN', 'getaddrinfo', 'getaddrinfo EAI_AGAIN api.anthropic.com');
    expect(classifyError(err).errorClass).toBe('network');
  });

  it('ECONNRESET → network', () => {
    expect(classifyError(systemError('ECONNRESET', 'read', 'read ECONNRESET')).errorClass).toBe('network');
  });

  it("regression: an AggregateError's errors are not read as GraphQL errors (refused connections → network)", () => {
    const err = new AggregateError(
      [
        systemError('ECONNREFUSED', 'connect', 'connect ECONNREFUSED ::1:443'),
        systemError('ECONNREFUSED', 'connect', 'connect ECONNREFUSED 127.0.0.1:443'),
      ],
      '',
    );
    expect(classifyError(new TypeError('fetch failed', { cause: err })).errorClass).toBe('network');
  });

  it('EACCES on a file → permission', () => {
    const err = systemError(
      'EACCES',
      'open',
      "EACCES: permission denied, open '/repo/.issueloop/claims.json'",
    );
    expect(classifyError(err).errorClass).toBe('permission');
  });
});

describe('classifyError walks nested causes with a bound', () => {
  it('finds a code three causes deep', () => {
    const inner = systemError('ECONNRESET', 'read', 'read ECONNRESET');
    const err = new Error('session failed', {
      cause: new Error('model call failed', { cause: new Error('fetch', { cause: inner }) }),
    });
    expect(classifyError(err).errorClass).toBe('network');
  });

  it('a cyclic cause chain terminates', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(classifyError(a).errorClass).toBe('unknown');
  });

  it('a cause deeper than the bound is not reached', () => {
    let err: Error = systemError('ECONNRESET', 'read', 'read ECONNRESET');
    for (let i = 0; i < 20; i++) err = new Error(`layer ${i}`, { cause: err });
    const result = classifyError(err);
    expect([result.errorClass, result.action]).toEqual(['unknown', 'diagnose']);
  });
});

describe('what a failed fetch says', () => {
  it('regression: "fetch failed" carries its cause (a port fetch refuses said only "fetch failed")', async () => {
    const err = await fetch('http://127.0.0.1:9/').catch((e: unknown) => e);
    expect(classifyError(err).message).toBe('fetch failed: bad port');
  });

  it('a host that does not resolve says so in words', () => {
    // As undici reports it, without asking a resolver (tests reach no real host).
    const cause = Object.assign(new Error('getaddrinfo ENOTFOUND no-such-host.invalid'), {
      code: 'ENOTFOUND',
    });
    const err = new TypeError('fetch failed', { cause });
    expect(classifyError(err).message).toBe('getaddrinfo ENOTFOUND no-such-host.invalid (no such host)');
  });
});
