import { describe, expect, it } from 'vitest';
import { bestOfText } from '../../src/github/best-of-text.js';

const ran = (...outcomes: string[]) => outcomes.map((outcome, i) => ({ k: i + 1, outcome }));

describe('bestOfText: a best-of-N claim in one line (issue 32 item 1)', () => {
  it('names the chosen attempt and why', () => {
    expect(
      bestOfText({
        n: 3,
        ran: ran('not_chosen', 'resolved', 'verify_failed'),
        winner: 2,
        why: 'the only attempt that passed verify',
      }),
    ).toBe('best of 3: attempt 2 chosen (the only attempt that passed verify)');
  });

  it('says how many ran when attempts.max_usd stopped the rest', () => {
    expect(
      bestOfText({ n: 3, ran: ran('resolved'), winner: 1, why: 'the only attempt that passed verify' }),
    ).toBe('best of 3 (1 ran): attempt 1 chosen (the only attempt that passed verify)');
    expect(
      bestOfText({ n: 3, ran: ran('verify_failed', 'verify_failed'), why: 'no attempt reached the judge' }),
    ).toBe('2 of 3 attempts ran, none passed verify');
  });

  it('says none passed verify when every attempt failed it, and tallies mixed failures', () => {
    expect(bestOfText({ n: 3, ran: ran('verify_failed', 'verify_failed', 'verify_failed'), why: 'x' })).toBe(
      '3 attempts, none passed verify',
    );
    expect(bestOfText({ n: 3, ran: ran('verify_failed', 'no_changes', 'verify_failed'), why: 'x' })).toBe(
      '3 attempts, none chosen: 2 verify_failed, 1 no_changes',
    );
  });

  it('says so when no attempt ran (interrupted before the first)', () => {
    expect(bestOfText({ n: 3, ran: [], why: 'no attempt reached the judge' })).toBe(
      'best of 3: no attempt ran (no attempt reached the judge)',
    );
  });
});
