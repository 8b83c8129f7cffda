import { join } from 'node:path';
import { NEEDS_HUMAN_LABEL as NEEDS_HUMAN } from '../../../github/labels.js';
import { latestLedger, readLedger } from '../../../session/ledger.js';
import type { DemoScenario } from './demo-scenario.js';

export interface DemoOutcome {
  /** The last outcome the run's ledger recorded per issue. */
  outcomes: ReadonlyMap<number, { outcome: string; pr?: string }>;
  /** The PR of the fixed issue: its URL as the run reported it (the emulator's), the rest from the emulator. */
  pr?: { number: number; url: string; branch: string; draft: boolean };
  /** How the run departed from the script; empty when the demo went as intended. */
  deviations: string[];
}

async function ledgerOutcomes(checkout: string): Promise<DemoOutcome['outcomes']> {
  const outcomes = new Map<number, { outcome: string; pr?: string }>();
  const file = await latestLedger(join(checkout, '.issueloop'));
  if (!file) return outcomes;
  for (const event of (await readLedger(file)).events) {
    if (event.type === 'outcome' && typeof event.issue === 'number' && typeof event.outcome === 'string') {
      outcomes.set(event.issue, {
        outcome: event.outcome,
        ...(typeof event.pr === 'string' ? { pr: event.pr } : {}),
      });
    }
  }
  return outcomes;
}

/**
 * Checks what the run did against the script, from the evidence a user could inspect: the run's
 * ledger, the emulated GitHub (PRs, labels, comments) and the requests the scripted model received.
 * The demo's exit code rests on it, so a regression in the real run path fails `issueloop demo` too.
 */
export async function assessDemo(scenario: DemoScenario): Promise<DemoOutcome> {
  const { github, issues } = scenario;
  const outcomes = await ledgerOutcomes(scenario.checkout);
  const deviations: string[] = [];
  const expect = (issue: number, outcome: string) => {
    const actual = outcomes.get(issue)?.outcome;
    if (actual !== outcome)
      deviations.push(`#${issue} ended ${actual ?? 'without an outcome'}, not ${outcome}`);
  };
  expect(issues.fixed, 'resolved');
  expect(issues.broken, 'verify_failed');

  const pulls = github.pulls();
  const pull = pulls.find((p) => p.head.ref === `issueloop/issue-${issues.fixed}`);
  if (!pull) deviations.push(`no pull request for #${issues.fixed}`);
  if (pulls.length !== 1) deviations.push(`${pulls.length} pull requests opened, not 1`);
  if (!github.labelsOf(issues.broken).includes(NEEDS_HUMAN)) {
    deviations.push(`#${issues.broken} did not get the ${NEEDS_HUMAN} label`);
  }

  // The untrusted issue must never reach the model nor be touched on GitHub.
  const askedAbout = scenario.anthropic.requests.some((r) =>
    JSON.stringify(r.body ?? '').includes(`Issue #${issues.untrusted}:`),
  );
  if (askedAbout) deviations.push(`the model was shown untrusted issue #${issues.untrusted}`);
  if (outcomes.has(issues.untrusted)) deviations.push(`untrusted issue #${issues.untrusted} was worked`);
  if (github.comments(issues.untrusted).length > 0) {
    deviations.push(`untrusted issue #${issues.untrusted} got a comment`);
  }

  return {
    outcomes,
    ...(pull
      ? {
          pr: {
            number: pull.number,
            // The run's own view: the loopback address it was given, not the emulator's default host.
            url: outcomes.get(issues.fixed)?.pr ?? pull.html_url,
            branch: pull.head.ref,
            draft: pull.draft,
          },
        }
      : {}),
    deviations,
  };
}
