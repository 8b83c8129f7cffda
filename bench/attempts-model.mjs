// The failure model of bench/attempts.mjs, without issueloop: the seeded draws, the same draws
// replayed (what a drain must give), and the closed-form expectation per issue.
import { createHash } from 'node:crypto';

/**
 * `seed`, `sticky` (the chance a retry the same way fails again), `maxFailures` (claims per issue),
 * `issues`: the failure model's settings.
 */
export function failureModel({ seed, sticky, maxFailures, issues }) {
  /** A uniform draw in [0, 1) from the seed and the key: the same key, the same draw, in either arm. */
  function draw(...key) {
    const digest = createHash('sha256')
      .update([seed, ...key].join('/'))
      .digest();
    return digest.readUInt32BE(0) / 2 ** 32;
  }

  /** Whether attempt k of the issue's claim-th claim fails verify, under the scenario. */
  function fails(scenario, p, issue, claim, k) {
    const u = draw(scenario, p, issue, claim, k);
    if (scenario === 'independent' || claim === 1 || k >= 2) return u < p;
    // sticky: a later claim's single attempt, or attempt 1 of a best-of-N claim, retries the same way.
    return draw(scenario, p, issue, 1, 1) < p ? u < sticky : u < p;
  }

  /**
   * The same draws replayed without issueloop: what the drain must give, issue by issue (merged or
   * needs-human, attempts, judge calls), if the scheduler, best-of-N and the judge work as documented.
   */
  function replay(scenario, p, n) {
    const out = { merged: 0, sessions: 0, judges: 0 };
    for (let issue = 1; issue <= issues; issue += 1) {
      for (let claim = 1; claim <= maxFailures; claim += 1) {
        const width = claim === 1 ? 1 : n;
        let passed = 0;
        for (let k = 1; k <= width; k += 1) if (!fails(scenario, p, issue, claim, k)) passed += 1;
        out.sessions += width;
        if (passed >= 2) out.judges += 1;
        if (passed > 0) {
          out.merged += 1;
          break;
        }
      }
    }
    return out;
  }

  /** The chances that none, exactly one, or two or more of attempts with these pass chances pass. */
  function passes(chances) {
    let dist = [1, 0, 0];
    for (const q of chances)
      dist = [dist[0] * (1 - q), dist[1] * (1 - q) + dist[0] * q, dist[2] + dist[1] * q];
    return dist;
  }

  /**
   * What one issue gives on average under the scenario, in closed form: P(merged), attempts and judge
   * calls. Claim 1 is one attempt; each later claim (up to max_failures) runs n of them.
   */
  function expected(scenario, p, n) {
    const retry = scenario === 'sticky' ? 1 - sticky : 1 - p;
    const later = n === 1 ? [retry] : [retry, ...Array(n - 1).fill(1 - p)];
    const [none, , several] = passes(later);
    let reach = p;
    let sessions = 1;
    let judges = 0;
    for (let claim = 2; claim <= maxFailures; claim += 1) {
      sessions += reach * n;
      judges += n > 1 ? reach * several : 0;
      reach *= none;
    }
    return { merged: 1 - reach, sessions, judges };
  }

  return { fails, replay, expected };
}
