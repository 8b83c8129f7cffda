import { describe, expect, it, vi } from 'vitest';
import { classifyError } from '../../src/core/classify/classify-error.js';
import { createSeededRandom } from '../../src/core/random.js';
import { type RetryEvent, RetryExhaustedError, retry } from '../../src/core/retry.js';
import { retryNoticeText } from '../../src/core/retry-notice.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';

/** An error shaped like an Anthropic SDK APIError (status + body), enough for classification. */
function apiError(status: number, type: string, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`${status} ${type}`), {
    status,
    headers,
    error: { type: 'error', error: { type, message: type } },
  });
}

const overloaded = () => apiError(529, 'overloaded_error');
const serverError = () => apiError(500, 'api_error');
const rateLimited = (retryAfter?: string) =>
  apiError(429, 'rate_limit_error', retryAfter ? { 'retry-after': retryAfter } : {});
const unauthorised = () => apiError(401, 'authentication_error');
const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

function setup(auto = true) {
  const clock = new FakeClock(undefined, auto);
  const log = createMemoryLog();
  return { clock, log, deps: { clock, log, random: createSeededRandom(3) } };
}

/** A function that fails with the given errors in order, then returns "done". */
function failing(...errors: Array<() => Error>) {
  return vi.fn(async (attempt: number) => {
    const make = errors[attempt - 1];
    if (make) throw make();
    return 'done';
  });
}

describe('retry', () => {
  it('retries transient failures with backoff and returns the result', async () => {
    const { clock, log, deps } = setup();
    const fn = failing(serverError, serverError);
    await expect(retry(fn, { operation: 'messages.create' }, deps)).resolves.toBe('done');
    expect(fn).toHaveBeenCalledTimes(3);
    expect(clock.sleeps).toHaveLength(2);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(2000);
    expect(clock.sleeps[0]).toBeLessThan(5000);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(4000);
    expect(clock.sleeps[1]).toBeLessThan(7000);
    const waits = log.entries.filter((e) => e.level === 'info').map((e) => e.msg);
    expect(waits).toEqual([
      `messages.create: 500 api_error: api_error; retrying 1/4 in ${Math.ceil((clock.sleeps[0] ?? 0) / 1000)} s…`,
      `messages.create: 500 api_error: api_error; retrying 2/4 in ${Math.ceil((clock.sleeps[1] ?? 0) / 1000)} s…`,
    ]);
    expect(log.entries[0]?.fields).toMatchObject({
      operation: 'messages.create',
      attempt: 1,
      errorClass: 'server_error',
    });
  });

  it('newcomer: while a service cannot be reached, the user sees the retries (one info line each: what failed, n/N, the wait)', async () => {
    const { clock, log, deps } = setup();
    const secret = 'sk-ant-api03-secretsecretsecret';
    const refused = () =>
      Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:9 key=${secret}`), { code: 'ECONNREFUSED' });
    const fn = failing(refused, refused, refused, refused);
    await retry(
      fn,
      {
        operation: 'GET /v1/models',
        attempts: { network: 4 },
        classify: (err, now) =>
          classifyError(err, { now, redact: (t) => t.replaceAll(secret, '[REDACTED]') }),
      },
      deps,
    ).catch(() => undefined);
    const lines = log.entries.filter((e) => e.level === 'info').map((e) => String(e.msg));
    expect(lines).toHaveLength(3);
    lines.forEach((line, i) => {
      const seconds = Math.ceil((clock.sleeps[i] ?? 0) / 1000);
      expect(line).toMatch(/^GET \/v1\/models: connect ECONNREFUSED 127\.0\.0\.1:9 key=\[REDACTED\]/);
      expect(line.endsWith(`; retrying ${i + 1}/3 in ${seconds} s…`)).toBe(true);
    });
    expect(lines.join('\n')).not.toContain(secret);
  });

  it('newcomer: a retry notice says the retry of how many and the wait in whole seconds, never "in 0 s"', () => {
    const notice = { operation: 'GET /x', message: 'refused', retry: 2, retries: 5 };
    expect(retryNoticeText({ ...notice, waitMs: 4_000 })).toBe('GET /x: refused; retrying 2/5 in 4 s…');
    expect(retryNoticeText({ ...notice, waitMs: 4_001 })).toBe('GET /x: refused; retrying 2/5 in 5 s…');
    expect(retryNoticeText({ ...notice, waitMs: 3 })).toBe('GET /x: refused; retrying 2/5 in 1 s…');
    expect(retryNoticeText({ ...notice, retries: 1, waitMs: 1_000 })).toBe(
      'GET /x: refused; retrying 2/2 in 1 s…',
    );
  });

  it('doubles the wait for rate limits', async () => {
    const { clock, deps } = setup();
    await retry(failing(rateLimited), { operation: 'op' }, deps);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(4000);
    expect(clock.sleeps[0]).toBeLessThan(10_000);
  });

  it('waits what retry-after asks, plus under a second of jitter', async () => {
    const { clock, deps } = setup();
    await retry(
      failing(() => rateLimited('7')),
      { operation: 'op' },
      deps,
    );
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(7000);
    expect(clock.sleeps[0]).toBeLessThan(8000);
  });

  it('waits the cap, then tries again, when the server asks for more than the cap', async () => {
    const { clock, deps } = setup();
    const fn = failing(() => rateLimited('3600'));
    await expect(retry(fn, { operation: 'op' }, deps)).resolves.toBe('done');
    expect(clock.sleeps).toEqual([60_000]);
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('never retries a fail-fast class (auth)', async () => {
    const { clock, deps } = setup();
    const fn = failing(unauthorised);
    const err = (await retry(fn, { operation: 'op' }, deps).catch((e: unknown) => e)) as RetryExhaustedError;
    expect(err).toBeInstanceOf(RetryExhaustedError);
    expect(err.attempts.map((a) => a.errorClass)).toEqual(['auth']);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(clock.sleeps).toEqual([]);
    expect(classifyError(err).errorClass).toBe('auth');
  });

  it('retries a retry_once class (network) exactly once', async () => {
    const { deps } = setup();
    const fn = failing(reset, reset, reset);
    const err = (await retry(fn, { operation: 'op' }, deps).catch((e: unknown) => e)) as RetryExhaustedError;
    expect(fn).toHaveBeenCalledTimes(2);
    expect(err.attempts.map((a) => a.errorClass)).toEqual(['network', 'network']);
  });

  it('spends each class from its own budget and lists every attempt when it gives up', async () => {
    const { deps } = setup();
    const fn = failing(overloaded, serverError, overloaded, serverError, overloaded, serverError);
    const err = (await retry(fn, { operation: 'messages.create', attempts: { overloaded: 3 } }, deps).catch(
      (e: unknown) => e,
    )) as RetryExhaustedError;
    expect(fn).toHaveBeenCalledTimes(5);
    expect(err.attempts.map((a) => a.errorClass)).toEqual([
      'overloaded',
      'server_error',
      'overloaded',
      'server_error',
      'overloaded',
    ]);
    expect(err.message).toBe(
      'messages.create: gave up after 5 attempts (overloaded, server_error, overloaded, server_error, overloaded; overloaded budget of 3 spent): 529 overloaded_error: overloaded_error',
    );
  });

  it('stops at maxAttempts over all classes', async () => {
    const { deps } = setup();
    const fn = failing(serverError, overloaded, serverError, overloaded);
    const err = (await retry(fn, { operation: 'op', maxAttempts: 3 }, deps).catch(
      (e: unknown) => e,
    )) as Error;
    expect(fn).toHaveBeenCalledTimes(3);
    expect(err.message).toContain('limit of 3 attempts');
  });

  it('asks the diagnosis before retrying an unknown failure', async () => {
    const { deps } = setup();
    const diagnose = vi.fn(async (_failure: unknown, _err: unknown) => true);
    const fn = failing(() => new Error('something odd'));
    await expect(retry(fn, { operation: 'op', diagnose }, deps)).resolves.toBe('done');
    expect(diagnose).toHaveBeenCalledTimes(1);
    expect(diagnose.mock.calls[0]?.[0]).toMatchObject({ errorClass: 'unknown', action: 'diagnose' });
  });

  it('gives up on an unknown failure when the diagnosis says so, or when there is none', async () => {
    const { deps } = setup();
    const no = await retry(
      failing(() => new Error('odd')),
      { operation: 'op', diagnose: async () => false },
      deps,
    ).catch((e: unknown) => e);
    expect((no as Error).message).toContain('diagnosis says give up');
    const none = failing(() => new Error('odd'));
    const noneErr = await retry(none, { operation: 'op' }, deps).catch((e: unknown) => e);
    expect((noneErr as Error).message).toContain('no diagnosis available');
    expect(none).toHaveBeenCalledTimes(1);
  });

  it('a diagnosis that throws gives up with every attempt still listed', async () => {
    const { deps } = setup();
    const diagnose = async () => {
      throw new Error('diagnosis model unreachable');
    };
    const err = (await retry(
      failing(serverError, () => new Error('odd')),
      { operation: 'op', diagnose },
      deps,
    ).catch((e: unknown) => e)) as RetryExhaustedError;
    expect(err).toBeInstanceOf(RetryExhaustedError);
    expect(err.attempts.map((a) => a.errorClass)).toEqual(['server_error', 'unknown']);
    expect(err.message).toContain('diagnosis failed: diagnosis model unreachable');
  });

  it('runs beforeRetry after the wait and before the next try (refresh on conflict)', async () => {
    const { deps } = setup();
    const order: string[] = [];
    const conflict = () =>
      Object.assign(new Error('409 conflict'), {
        status: 409,
        headers: {},
        name: 'HttpError',
        response: { data: { message: 'Conflict' }, headers: {} },
      });
    let calls = 0;
    const fn = async () => {
      order.push(`try ${++calls}`);
      if (calls === 1) throw conflict();
      return 'done';
    };
    await retry(
      fn,
      { operation: 'op', beforeRetry: async (f) => void order.push(`refresh after ${f.errorClass}`) },
      deps,
    );
    expect(order).toEqual(['try 1', 'refresh after conflict', 'try 2']);
  });

  it('rethrows an aborted failure untouched, without retrying', async () => {
    const { deps } = setup();
    const abort = new DOMException('This operation was aborted', 'AbortError');
    const fn = vi.fn(async () => {
      throw abort;
    });
    await expect(retry(fn, { operation: 'op' }, deps)).rejects.toBe(abort);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('an abort during the wait ends the retry at once', async () => {
    const { clock, deps } = setup(false);
    const controller = new AbortController();
    const fn = failing(serverError, serverError);
    const pending = retry(fn, { operation: 'op' }, deps, controller.signal);
    await vi.waitFor(() => expect(clock.pendingCount).toBe(1));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('an abort with a custom reason still ends as an AbortError carrying that reason', async () => {
    const { clock, deps } = setup(false);
    const controller = new AbortController();
    const pending = retry(failing(serverError), { operation: 'op' }, deps, controller.signal);
    await vi.waitFor(() => expect(clock.pendingCount).toBe(1));
    controller.abort('SIGINT');
    const err = (await pending.catch((e: unknown) => e)) as Error;
    expect(err.name).toBe('AbortError');
    expect(err.cause).toBe('SIGINT');
  });

  it('does not call fn when the signal is already aborted', async () => {
    const { deps } = setup();
    const controller = new AbortController();
    controller.abort();
    const fn = failing();
    await expect(retry(fn, { operation: 'op' }, deps, controller.signal)).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(fn).not.toHaveBeenCalled();
  });

  it('reports each retry to onRetry for the ledger', async () => {
    const { deps, clock } = setup();
    const events: RetryEvent[] = [];
    await retry(
      failing(() => rateLimited('2')),
      { operation: 'GET /issues', onRetry: (e) => events.push(e) },
      { ...deps, random: () => 0 },
    );
    expect(events).toEqual([
      {
        operation: 'GET /issues',
        attempt: 1,
        errorClass: 'rate_limit',
        message: '429 rate_limit_error: rate_limit_error',
        waitMs: 2000,
      },
    ]);
    expect(clock.sleeps).toEqual([2000]);
  });
});
