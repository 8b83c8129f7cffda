import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { UsageError } from '../../../core/errors.js';
import { terminalJson } from '../../../core/terminal-text.js';
import { EXIT, type ExitCode } from '../../../run/exit-codes.js';
import type { CliIo } from '../../command-io.js';
import type { DemoOutcome, DemoScenario } from './index.js';

export interface DemoFlags {
  keep?: boolean;
  json?: boolean;
}

export interface DemoInput {
  flags: DemoFlags;
  /** The caller's environment: only PATH is read from it, never a token. */
  env: Readonly<Record<string, string | undefined>>;
  nodeVersion: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Stops the demo's run as Ctrl-C stops a real one; the temporary repository is still removed. */
  interrupt?: AbortSignal;
  /** stderr is a terminal: the run shows its live progress lines, as a real one would. */
  isTTY?: boolean;
  /** A terminal that cannot move its cursor (TERM=dumb). */
  noCursor?: boolean;
  /** Colours in readable log lines. */
  color?: boolean;
  /** The terminal's width and its resizes, for the run's live lines. */
  columns?: () => number | undefined;
  onResize?: (listener: () => void) => () => void;
  /** The global log flags the demo's run honours (`--verbose`, `--quiet`, `--log-format`). */
  logFlags?: readonly string[];
  /** The real CLI, run against the demo's emulators (handed in: the CLI is what runs this command). */
  runCli: (io: CliIo) => Promise<ExitCode>;
}

export const DEMO_LABEL =
  'issueloop demo — against a local GitHub emulator and a scripted model; nothing leaves this machine';

function header(scenario: DemoScenario, verifyCommand: string): string {
  const { github, issues } = scenario;
  const rows: Array<[number, string]> = [
    [issues.fixed, 'by a member: the scripted agent fixes it'],
    [issues.broken, "by a member: the scripted agent's change breaks the tests"],
    [issues.untrusted, 'by an outsider, who labelled it themselves'],
  ];
  const titles = rows.map(([n]) => `#${n} ${github.issue(n)?.title ?? ''}`);
  const width = Math.max(...titles.map((title) => title.length));
  return [
    DEMO_LABEL,
    '',
    `  GitHub    ${github.owner}/${github.repo}, emulated at ${scenario.env.GITHUB_API_URL}`,
    `  model     scripted, behind an emulated Anthropic API at ${scenario.env.ANTHROPIC_BASE_URL}`,
    `  checkout  ${scenario.checkout} (its origin is a bare repository next to it)`,
    `  verify    ${verifyCommand} (set in the checkout's issueloop.config.yaml)`,
    '',
    ...rows.map(([, who], i) => `  ${(titles[i] ?? '').padEnd(width)}  ${who}`),
    '',
    `$ issueloop ${scenario.runArgs.join(' ')}`,
    '',
    '',
  ].join('\n');
}

function epilogue(scenario: DemoScenario, outcome: DemoOutcome, keep: boolean): string {
  const { issues } = scenario;
  const ended = (n: number) => outcome.outcomes.get(n)?.outcome ?? 'not worked';
  const pr = outcome.pr;
  const lines = [
    '',
    'What happened:',
    `  #${issues.fixed} ${ended(issues.fixed)}: the agent viewed greet.js and fixed the typo; \`node test.js\` ` +
      'passed;',
    `     the harness committed, pushed ${pr?.branch ?? 'its branch'} and opened ` +
      `${pr ? `${pr.draft ? 'draft ' : ''}PR #${pr.number}` : 'no PR'} in the emulated GitHub.`,
    `     Then CI failed on it: the next run's follow-up session, told the failing check, its annotation`,
    '     and its log, tightened test.js on the same branch and pushed to the same PR. CI passed, the',
    '     maintainer merged it, and the run after that moved the issue to Done on the board.',
    `  #${issues.broken} ${ended(issues.broken)}: the agent's toFixed() change broke \`node test.js\`; ` +
      'shown the output, it gave up,',
    '     so no PR was opened and the issue was labelled issueloop:needs-human for a person.',
    `  #${issues.untrusted} not worked: opened and labelled by an outsider without write access, so the ` +
      'trust gate',
    '     kept it from the model (the defence against prompt injection through issues).',
    '',
  ];
  if (keep) {
    lines.push(
      `Kept the temporary repository in ${scenario.root}:`,
      `  ${`${basename(scenario.checkout)}/`.padEnd(10)}  the checkout; \`issueloop status\` there shows this run, ` +
        '.issueloop/ holds its state',
      `  ${basename(scenario.origin).padEnd(10)}  the bare "GitHub" remote, with the pushed branch ${pr?.branch ?? ''}`.trimEnd(),
      `Remove it with: rm -rf ${scenario.root}`,
    );
  } else {
    lines.push('The temporary repository was removed; `issueloop demo --keep` keeps it to look around.');
  }
  return `${lines.join('\n')}\n`;
}

/** The demo's three runs, in order, as `demo --json` names them. */
export type DemoRunName = 'first_attempt' | 'ci_follow_up' | 'merge';

/**
 * `demo --json`: one document with every run the demo made, each with its JSON summary and its ledger's
 * path. The path only when the repository it is in was kept (it is removed otherwise), with `kept`
 * saying which.
 */
export function demoSummary(runs: ReadonlyArray<{ name: DemoRunName; text: string }>, kept: boolean): string {
  const entries = runs.map(({ name, text }) => {
    try {
      const summary = JSON.parse(text) as Record<string, unknown>;
      const ledger = kept && typeof summary.ledger === 'string' ? summary.ledger : null;
      return { name, ledger, summary: { ...summary, ledger } };
    } catch {
      return { name, ledger: null, summary: null, output: text };
    }
  });
  return `${terminalJson({ kept, runs: entries }, undefined, 2)}\n`;
}

/**
 * The demo honours the global log flags (its run gets them) and refuses the ones that choose a
 * configuration or a repository: it builds its own, so `--config typo.yaml demo` must not pass silently.
 * A configuration file or ISSUELOOP_* settings where it runs are not used either, and it says so.
 */
export function demoGlobalFlags(
  globals: {
    config?: string;
    repo?: string;
    set?: string[];
    logFormat?: string;
    verbose?: boolean;
    quiet?: boolean;
  },
  io: { cwd: string; env: Readonly<Record<string, string | undefined>>; stderr: (text: string) => void },
): string[] {
  const refused = [
    ...(globals.config !== undefined ? ['--config'] : []),
    ...(globals.repo !== undefined ? ['--repo'] : []),
    ...((globals.set ?? []).length > 0 ? ['--set'] : []),
  ];
  if (refused.length > 0) {
    throw new UsageError(
      `demo runs on its own temporary repository with its own configuration: ${refused.join(', ')} cannot apply to it; drop ${refused.length === 1 ? 'it' : 'them'}, or use \`issueloop run\` on your repository`,
    );
  }
  const ignored = [
    ...(existsSync(join(io.cwd, 'issueloop.config.yaml')) ? ['issueloop.config.yaml'] : []),
    ...Object.keys(io.env).filter((name) => name.startsWith('ISSUELOOP_')),
  ];
  if (ignored.length > 0)
    io.stderr(
      `issueloop demo: not used by the demo, which brings its own configuration: ${ignored.join(', ')}\n`,
    );
  return [
    ...(globals.logFormat !== undefined ? ['--log-format', globals.logFormat] : []),
    ...(globals.verbose ? ['--verbose'] : []),
    ...(globals.quiet ? ['--quiet'] : []),
  ];
}

/** One `issueloop run` of the demo, against its emulators in its checkout; stdout goes to `stdout`. */
function demoRun(
  input: DemoInput,
  scenario: DemoScenario,
  stdout: (text: string) => void,
): Promise<ExitCode> {
  const json = input.flags.json === true;
  return input.runCli({
    argv: [...(input.logFlags ?? []), ...scenario.runArgs, ...(json ? ['--json'] : [])],
    env: scenario.env,
    cwd: scenario.checkout,
    nodeVersion: input.nodeVersion,
    stdout,
    stderr: input.stderr,
    ...(input.interrupt ? { interrupt: input.interrupt } : {}),
    ...(input.isTTY ? { isTTY: true } : {}),
    ...(input.noCursor ? { noCursor: true } : {}),
    ...(input.color === undefined ? {} : { color: input.color }),
    ...(input.columns ? { columns: input.columns } : {}),
    ...(input.onResize ? { onResize: input.onResize } : {}),
    // The emulator needs no pacing of writes: the demo takes a second, not twelve.
    githubWriteSpacingMs: 0,
  });
}

/**
 * The scenes after the first run: CI fails on the first PR and a follow-up session fixes it on the
 * same branch; then CI passes, the maintainer merges, and the next run moves the issue to Done.
 * Returns how it departed from the script (empty when it did not), or the exit code of a run that failed.
 */
async function followThePull(
  input: DemoInput,
  scenario: DemoScenario,
  say: (text: string) => void,
  pr: { number: number; branch: string },
  stdoutOf: (name: DemoRunName) => (text: string) => void,
): Promise<string[] | ExitCode> {
  const { failCi, passCiAndMerge, assessFollowUp, assessMerged, DEMO_MAINTAINER, DEMO_CHECK } = await import(
    './index.js'
  );
  failCi(scenario, pr.branch);
  say(
    `\nCI ran on PR #${pr.number} and its \`${DEMO_CHECK}\` check failed. The next run follows the PR:\n\n$ issueloop ${scenario.runArgs.join(' ')}\n\n`,
  );
  let code = await demoRun(input, scenario, stdoutOf('ci_follow_up'));
  if (code !== EXIT.ok) return code;
  const followed = await assessFollowUp(scenario, pr.number);
  if (followed.length > 0) return followed;
  passCiAndMerge(scenario, pr.branch, DEMO_MAINTAINER);
  say(
    `\nCI passed on the follow-up's commit and ${DEMO_MAINTAINER} merged PR #${pr.number}. The next run books it:\n\n$ issueloop ${scenario.runArgs.join(' ')}\n\n`,
  );
  code = await demoRun(input, scenario, stdoutOf('merge'));
  if (code !== EXIT.ok) return code;
  return assessMerged(scenario, scenario.project);
}

/**
 * `issueloop demo`: the real `issueloop run` — argument parsing, configuration, rounds, sessions,
 * verify, pull requests — against the project's own GitHub emulator and a scripted Anthropic-compatible
 * server on loopback, in a temporary repository; then the life of its pull request (CI fails, a
 * follow-up fixes it, it merges, the board says Done) in two more runs. The run's environment is built
 * from scratch, so the caller's tokens are neither needed nor forwarded. Exits 0 when every run went
 * as scripted, 1 with the evidence when one did not, so the demo doubles as a smoke test of an
 * installation.
 */
export async function runDemo(input: DemoInput): Promise<ExitCode> {
  // Loaded on demand like every command's code: the emulators are not needed by any other command.
  const { startDemoScenario, assessDemo, DEMO_VERIFY_COMMAND } = await import('./index.js');
  const json = input.flags.json === true;
  // With --json stdout carries only the run's JSON, so it stays machine-readable; the story goes to stderr.
  const say = json ? input.stderr : input.stdout;
  const scenario = await startDemoScenario({ callerPath: input.env.PATH });
  let keep = input.flags.keep === true;
  // With --json every run's summary is held back until the demo knows whether its ledgers are kept.
  const runs: Array<{ name: DemoRunName; text: string }> = [];
  const stdoutOf = (name: DemoRunName) => {
    if (!json) return input.stdout;
    const run = { name, text: '' };
    runs.push(run);
    return (text: string) => {
      run.text += text;
    };
  };
  const ended = (code: ExitCode): ExitCode => {
    if (code === EXIT.interrupted) {
      input.stderr(`issueloop demo: interrupted${keep ? `; kept ${scenario.root}` : ''}\n`);
    } else {
      input.stderr(`issueloop demo: the run exited with ${code}\n`);
    }
    return code;
  };
  const deviated = (deviations: readonly string[]): ExitCode => {
    // Left in place so whoever reports the bug can show what the run did.
    keep = true;
    const list = deviations.map((deviation) => `  ${deviation}\n`).join('');
    input.stderr(
      `issueloop demo: the run did not go as scripted:\n${list}` +
        `the repository and the run's state are kept in ${scenario.root}\n`,
    );
    return EXIT.failure;
  };
  try {
    say(header(scenario, DEMO_VERIFY_COMMAND));
    const code = await demoRun(input, scenario, stdoutOf('first_attempt'));
    if (code !== EXIT.ok) return ended(code);
    const outcome = await assessDemo(scenario);
    if (outcome.deviations.length > 0) return deviated(outcome.deviations);
    const pr = outcome.pr as NonNullable<typeof outcome.pr>;
    const followed = await followThePull(input, scenario, say, pr, stdoutOf);
    if (typeof followed === 'number') return ended(followed);
    if (followed.length > 0) return deviated(followed);
    say(epilogue(scenario, outcome, keep));
    return EXIT.ok;
  } finally {
    await scenario.close({ keep });
    if (runs.length > 0) input.stdout(demoSummary(runs, keep));
  }
}
