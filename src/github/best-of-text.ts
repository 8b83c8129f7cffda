/**
 * A best-of-N claim in one line, as the tracking comment and the run summary show it:
 * `best of 3: attempt 2 chosen (the only attempt that passed verify)`, or
 * `3 attempts, none passed verify`. Plain text: the comment neutralises it like its other lines.
 */
export interface BestOfView {
  n: number;
  ran: ReadonlyArray<{ k: number; outcome: string }>;
  winner?: number;
  why: string;
}

export function bestOfText(view: BestOfView): string {
  const ran = view.ran.length;
  if (view.winner !== undefined) {
    const of = ran < view.n ? ` (${ran} ran)` : '';
    return `best of ${view.n}${of}: attempt ${view.winner} chosen (${view.why})`;
  }
  const attempts = ran < view.n ? `${ran} of ${view.n} attempts ran` : `${ran} attempts`;
  if (ran === 0) return `best of ${view.n}: no attempt ran (${view.why})`;
  if (view.ran.every((a) => a.outcome === 'verify_failed')) return `${attempts}, none passed verify`;
  return `${attempts}, none chosen: ${tally(view.ran)}`;
}

/** `2 verify_failed, 1 no_changes`, most frequent first. */
function tally(ran: BestOfView['ran']): string {
  const counts = new Map<string, number>();
  for (const { outcome } of ran) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([outcome, count]) => `${count} ${outcome}`)
    .join(', ');
}
