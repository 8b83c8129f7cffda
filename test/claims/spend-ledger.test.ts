import { describe, expect, it } from 'vitest';
import { createMemorySpendBackend, createSpendLedger } from '../../src/claims/spend-ledger.js';
import {
  describeCapReached,
  describeWindow,
  windowAt,
  windowEnd,
  windowState,
} from '../../src/claims/spend-windows.js';
import { describeSpendLedgerContract } from './spend-ledger-contract.js';

describeSpendLedgerContract('memory', async (caps, clock) => {
  const backend = createMemorySpendBackend();
  return {
    ledger: createSpendLedger(backend, { caps, clock }),
    share: () => createSpendLedger(backend, { caps, clock }),
  };
});

describe('spend windows', () => {
  it('names UTC days and months, and where each ends (December rolls into the next year)', () => {
    const at = Date.UTC(2026, 11, 31, 23, 59);
    expect(windowAt('day', at)).toEqual({
      key: 'day:2026-12-31',
      start: Date.UTC(2026, 11, 31),
      end: Date.UTC(2027, 0, 1),
    });
    expect(windowAt('month', at)).toEqual({
      key: 'month:2026-12',
      start: Date.UTC(2026, 11, 1),
      end: Date.UTC(2027, 0, 1),
    });
    expect(windowEnd('month:2026-12')).toBe(Date.UTC(2027, 0, 1));
    expect(windowEnd('day:2026-02-28')).toBe(Date.UTC(2026, 2, 1));
    expect(windowEnd('week:1')).toBeNaN();
  });

  it('says which cap was reached, what is spent and reserved, and when the window reopens', () => {
    const window = windowState('day', 'day:2026-11-26', { daily_usd: 20 }, 19_400_000, 5_000_000);
    const now = Date.UTC(2026, 10, 26, 20, 48);
    expect(describeCapReached(window, now)).toBe(
      'daily cap $20 reached ($19.40 spent, $5 reserved); the window reopens at 2026-11-27 00:00 UTC, in 3h 12m',
    );
    expect(window.left_usd).toBe(0);
    const small = windowState('day', 'day:2026-11-26', { daily_usd: 0.003 }, 1_737, 2_000);
    expect(describeCapReached(small, now)).toMatch(
      /^daily cap \$0\.003 reached \(\$0\.001737 spent, \$0\.002 reserved\)/,
    );
  });

  it('shows what is left in a capped window and the spend of an uncapped one', () => {
    const capped = windowState('month', 'month:2026-11', { monthly_usd: 300 }, 120_500_000, 5_000_000);
    expect(describeWindow(capped)).toBe(
      'monthly cap $300: $174.50 left ($120.50 spent, $5 reserved) until 2026-12-01 00:00 UTC',
    );
    const open = windowState('day', 'day:2026-11-26', { monthly_usd: 300 }, 2_000_000, 0);
    expect(describeWindow(open)).toBe('today: no cap ($2 spent, $0 reserved)');
  });
});
