import { costOf, type PriceTable, priceOf } from '../../model/prices.js';
import type { Admission, CallFacts } from '../../sandbox/model-proxy.js';
import { MAX_OUTPUT_TOKENS } from '../../sandbox/model-tokens.js';

/**
 * `session.max_usd` at the model proxy. The agent drives `claude` and can call the proxy itself, as
 * often and as concurrently as it likes, so counting only what finished calls spent lets ten calls
 * fired at once each pass the check while the budget is still unspent. Each Messages call in flight
 * holds a reservation of the most it can cost; a call is forwarded only while what was spent plus
 * what the calls in flight hold plus its own reservation fits in the budget, or when no other call
 * is in flight (so one call can always run while any budget is left, as before: the overrun is at
 * most one call's cost). A call that does not fit waits for the calls in flight to end, then is
 * weighed again: once the budget is spent it is refused with a 400, which the CLI does not retry.
 */

export { MAX_OUTPUT_TOKENS } from '../../sandbox/model-tokens.js';

/**
 * The most a call can cost: every input token it can be billed for (its bytes, and the most each of
 * its images or documents can cost: CallFacts.inputTokens, model-tokens.ts) written to the cache for
 * an hour, the dearest way to take input, and `max_tokens` of output, at the requested model's price
 * (an unknown or missing model at the dearest line's), the long-context premium included when the
 * input can be over 200K tokens.
 */
export function worstCaseUsd(facts: CallFacts, prices: PriceTable): number {
  const price = priceOf(facts.model ?? '', prices);
  const output = facts.maxTokens ?? MAX_OUTPUT_TOKENS;
  const tokens = facts.inputTokens ?? facts.bytes;
  const ways = [
    { input: tokens, cacheWrite: 0, cacheRead: 0, output },
    { input: 0, cacheWrite: tokens, cacheRead: 0, output },
    { input: 0, cacheWrite: tokens, cacheWrite1h: tokens, cacheRead: 0, output },
  ];
  return Math.max(...ways.map((usage) => costOf(usage, price)));
}

export interface BudgetGate {
  admit(call: string, facts: CallFacts): Promise<Admission>;
  /** What the calls in flight hold (USD). */
  reserved(): number;
}

export function budgetGate(options: {
  budgetUsd: number | undefined;
  prices: PriceTable;
  /** What the session spent so far, as the API's answers told it. */
  spentUsd: () => number;
  /** A Messages call refused because the budget is spent: the message to answer it with. */
  onOver: () => string;
}): BudgetGate {
  let reserved = 0;
  let inFlight = 0;
  let waiting: (() => void)[] = [];
  const wake = () => {
    const woken = waiting;
    waiting = [];
    for (const resume of woken) resume();
  };
  const admit = async (call: string, facts: CallFacts): Promise<Admission> => {
    const { budgetUsd } = options;
    if (budgetUsd === undefined || call !== 'POST /v1/messages') return undefined;
    const hold = worstCaseUsd(facts, options.prices);
    for (;;) {
      const spent = options.spentUsd();
      if (spent >= budgetUsd) {
        // A 400, which the CLI does not retry: the engine reads the stop as the budget's.
        return { status: 400, type: 'invalid_request_error', message: options.onOver() };
      }
      if (inFlight === 0 || spent + reserved + hold <= budgetUsd) break;
      await new Promise<void>((resume) => waiting.push(resume));
    }
    reserved += hold;
    inFlight += 1;
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        reserved -= hold;
        inFlight -= 1;
        wake();
      },
    };
  };
  return { admit, reserved: () => Math.max(0, reserved) };
}
