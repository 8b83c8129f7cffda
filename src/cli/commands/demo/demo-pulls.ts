import { join } from 'node:path';
import type { GitHubEmulator } from '../../../emulators/github/index.js';
import { IN_PROGRESS_LABEL } from '../../../github/labels.js';
import { latestLedger, readLedger } from '../../../session/ledger.js';
import type { DemoScenario } from './demo-scenario.js';

/** The check the demo's "CI" reports on a pull request's head commit. */
export const DEMO_CHECK = 'test';
/** What the failing check says: the test it wants is about the issue's own fix. */
export const DEMO_CHECK_FAILURE = "greet() is fixed, but no test checks the greeting's words";

/** The demo's PR for the fixed issue, as the emulator has it now. */
export function demoPull(github: GitHubEmulator, issue: number) {
  return github.pulls().find((p) => p.head.ref === `issueloop/issue-${issue}`);
}

/**
 * Scene two's start: the repository's CI ran on the first PR's head and its `test` check failed,
 * with an annotation and a job log as GitHub Actions leaves them.
 */
export function failCi(scenario: DemoScenario, branch: string): void {
  scenario.github.addCheckRun({
    ref: branch,
    name: DEMO_CHECK,
    status: 'completed',
    conclusion: 'failure',
    output: { title: '1 check failed', summary: DEMO_CHECK_FAILURE },
    annotations: [
      {
        path: 'test.js',
        start_line: 7,
        end_line: 7,
        annotation_level: 'failure',
        message: `${DEMO_CHECK_FAILURE}: assert the whole greeting, e.g. greet('Ada') === 'hello, Ada!'`,
      },
    ],
    log: `2026-11-25T10:00:00.0000000Z > node test.js --strict\n2026-11-25T10:00:01.0000000Z Error: ${DEMO_CHECK_FAILURE}\n`,
  });
}

/** Scene three's start: CI passes on the follow-up's commit and the maintainer merges the PR. */
export function passCiAndMerge(scenario: DemoScenario, branch: string, maintainer: string): number {
  const { github } = scenario;
  github.addCheckRun({ ref: branch, name: DEMO_CHECK, status: 'completed', conclusion: 'success' });
  const pull = demoPull(github, scenario.issues.fixed);
  if (!pull) throw new Error('demo: the pull request is gone');
  github.mergePull(pull.number, maintainer);
  return pull.number;
}

/** The ledger events of the newest run in the demo's checkout. */
async function lastRunEvents(checkout: string): Promise<Array<Record<string, unknown>>> {
  const file = await latestLedger(join(checkout, '.issueloop'));
  return file ? (await readLedger(file)).events : [];
}

/** Scene two, checked: one follow-up session pushed to the same PR, and the test it added. */
export async function assessFollowUp(scenario: DemoScenario, prNumber: number): Promise<string[]> {
  const { github, issues } = scenario;
  const deviations: string[] = [];
  const events = await lastRunEvents(scenario.checkout);
  const outcome = events.findLast((e) => e.type === 'outcome' && e.issue === issues.fixed);
  const wanted = `pushed to PR #${prNumber} (follow-up 1: failing checks)`;
  if (outcome?.outcome !== 'resolved' || outcome.reason !== wanted) {
    deviations.push(
      `the follow-up of #${issues.fixed} ended ${String(outcome?.outcome ?? 'without an outcome')} (${String(outcome?.reason ?? '')}), not resolved: ${wanted}`,
    );
  }
  if (github.pulls().length !== 1) deviations.push(`${github.pulls().length} pull requests, not 1`);
  return deviations;
}

/** Scene three, checked: Done on the board, the trigger labels off, the tracking comment final. */
export function assessMerged(scenario: DemoScenario, projectNumber: number): string[] {
  const { github, issues } = scenario;
  const deviations: string[] = [];
  const item = github.project(projectNumber)?.items.find((i) => i.issueNumber === issues.fixed);
  if (item?.status !== 'Done')
    deviations.push(`#${issues.fixed} is ${item?.status ?? 'not'} on the board, not Done`);
  const labels = github.labelsOf(issues.fixed);
  for (const label of ['issueloop', IN_PROGRESS_LABEL]) {
    if (labels.includes(label)) deviations.push(`#${issues.fixed} still has the ${label} label`);
  }
  const comment = github.comments(issues.fixed).find((c) => c.body.includes('issueloop:tracking'));
  if (!comment?.body.includes('**issueloop** · done')) {
    deviations.push(`#${issues.fixed}'s tracking comment does not say done`);
  }
  return deviations;
}
