import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../src/core/redact.js';
import { UNSANDBOXED } from '../../src/sandbox/sandbox.js';
import { failureClassOf, isFailure, outcomeOfStop, productivity } from '../../src/session/outcome.js';
import { FAILING_LINE_CHARS, failingLine, renderVerifyFailure, runVerify } from '../../src/session/verify.js';
import { FakeClock } from '../helpers/fake-clock.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-verify-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const run = (command: string, timeoutMs = 10_000) =>
  runVerify(command, {
    cwd: dir,
    env,
    timeoutMs,
    signal: new AbortController().signal,
    clock: new FakeClock(),
    sandbox: UNSANDBOXED,
  });

describe('verify', () => {
  it('passes on exit 0, in the worktree', async () => {
    await writeFile(join(dir, 'marker'), 'here');
    const result = await run('cat marker');
    expect(result).toMatchObject({ passed: true, exitCode: 0, timedOut: false, output: 'here' });
  });

  it('fails with the exit code and the output, and tells the agent what to do', async () => {
    const result = await run('echo "1 failing test: parser"; exit 3');
    expect(result).toMatchObject({ passed: false, exitCode: 3 });
    const message = renderVerifyFailure(result, 1);
    expect(message).toContain('`echo "1 failing test: parser"; exit 3`');
    expect(message).toContain('failed with exit code 3');
    expect(message).toContain('1 failing test: parser');
    expect(message).toContain('1 fix-up turn(s) left');
  });

  it('a check that never ends is killed at its timeout and fails', async () => {
    const result = await run('echo start; sleep 1000', 300);
    expect(result.passed).toBe(false);
    expect(result.timedOut).toBe(true);
    expect(result.output).toContain('[verify timed out after 0.3 s]');
    expect(renderVerifyFailure(result, 0)).toContain('timed out');
  });

  it('sees only the environment it is given', async () => {
    const result = await run('echo "[$GITHUB_TOKEN]"');
    expect(result.output).toBe('[]\n');
  });
});

describe('outcome', () => {
  it('maps each agent stop; end_turn leaves the decision to validation', () => {
    expect(outcomeOfStop('end_turn')).toBeUndefined();
    expect(outcomeOfStop('refusal')).toBe('refused');
    expect(outcomeOfStop('aborted')).toBe('interrupted');
    for (const stop of [
      'turn_call_limit',
      'model_call_limit',
      'token_limit',
      'cost_limit',
      'time_limit',
    ] as const) {
      expect(outcomeOfStop(stop)).toBe('budget_exceeded');
    }
    expect(outcomeOfStop('context_overflow')).toBe('error:context_overflow');
    expect(
      outcomeOfStop('model_error', {
        errorClass: 'auth',
        action: 'fail_fast',
        retryable: false,
        failover: false,
        source: 'anthropic',
        message: 'x',
      }),
    ).toBe('error:auth');
  });

  it('interruptions and resolutions are not failures; classes come from the outcome', () => {
    expect(isFailure('resolved')).toBe(false);
    expect(isFailure('interrupted')).toBe(false);
    expect(isFailure('verify_failed')).toBe(true);
    expect(failureClassOf('error:rate_limit')).toBe('rate_limit');
    expect(failureClassOf('no_changes')).toBe('no_changes');
  });

  it('productivity: (files × 2 + PRs × 5) / tool calls, warning at ≥ 30 calls below 0.1', () => {
    expect(productivity(3, 1, 11)).toEqual({ score: 1 });
    expect(productivity(0, 0, 0)).toEqual({ score: 0 });
    expect(productivity(0, 0, 30)).toEqual({
      score: 0,
      warning: 'low productivity: 30 tool calls, 0 files changed',
    });
    expect(productivity(1, 0, 29).warning).toBeUndefined();
    expect(productivity(2, 0, 40).warning).toBeUndefined();
  });
});

describe('failingLine: the line a failed check is reported by', () => {
  it('the first line that starts a failure report, else the last that mentions one, else the last line', () => {
    const output = [
      '> test',
      'ok 1 - parses',
      'not ok 2 - greets',
      '  expected: hello',
      '  actual: helo',
      '1 of 2 failed',
      '',
    ].join('\n');
    expect(failingLine(output)).toBe('not ok 2 - greets');
    expect(failingLine('compiled\n3 passed, 1 failed\ndone')).toBe('3 passed, 1 failed');
    // Node's assert: the headline, not the `expected:` line of the object printed after it.
    const assertion = [
      'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
      "'5.00' !== 5",
      '  expected: 5,',
      "  operator: 'strictEqual'",
      '}',
    ].join('\n');
    expect(failingLine(assertion)).toBe(
      'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
    );
    expect(failingLine('none of that\n')).toBe('none of that');
    // An uncaught error as Node prints it: the source line quoted above it names no failure.
    const uncaught = [
      'node:internal/process/esm_loader:40',
      '      triggerUncaughtException(',
      '      ^',
      '',
      'TypeError: x is not a function',
    ].join('\n');
    expect(failingLine(uncaught)).toBe('TypeError: x is not a function');
    expect(failingLine('Error: cannot find module x\n    at load (a.js:1:1)\n')).toBe(
      'Error: cannot find module x',
    );
    expect(failingLine('building\ndone in 3s\n')).toBe('done in 3s');
    expect(failingLine('\n  \n')).toBeUndefined();
  });

  it('regression: a verify failure said only its command and exit code, so the next attempt started blind', async () => {
    await writeFile(
      join(dir, 'test.sh'),
      'echo "running 3 tests"\necho "AssertionError: expected \'helo\' to equal \'hello\'"\nexit 1\n',
    );
    const result = await run('bash test.sh');
    expect(result.passed).toBe(false);
    expect(failingLine(result.output)).toBe("AssertionError: expected 'helo' to equal 'hello'");
  });

  it('is one line of at most FAILING_LINE_CHARS, without control characters, and skips the timeout note', () => {
    const long = failingLine(`Error: ${'x'.repeat(500)}`);
    expect(long).toHaveLength(FAILING_LINE_CHARS);
    expect(long?.endsWith('…')).toBe(true);
    expect(failingLine('Error:\u001b[31m red\u0007 bell\r')).toBe('Error: red bell');
    expect(failingLine('compiling\n[verify timed out after 60 s]')).toBe('compiling');
  });
  describe('regression: a secret in the output leaked through the quoted line (cut, split or escaped before it was redacted)', () => {
    const SECRET = 'corp-deploy-key-7f3a9c2e1b5d4068';
    const redact = createRedactor([SECRET]);

    it('a secret across the cut: no prefix of it is quoted', () => {
      const output = `Error: ${'x'.repeat(FAILING_LINE_CHARS - 20)} ${SECRET}`;
      const line = failingLine(output, redact);
      expect(line?.startsWith('Error: xxx')).toBe(true);
      expect(line).toContain('[REDAC');
      expect(line).not.toContain(SECRET.slice(0, 8));
      // Without the redactor the cut keeps the secret's first characters.
      expect(failingLine(output)).toContain(SECRET.slice(0, 8));
    });

    it('a secret split across two lines, or by controls, or by an escape sequence', () => {
      const half = SECRET.length / 2;
      const [a, b] = [SECRET.slice(0, half), SECRET.slice(half)];
      expect(failingLine(`FAIL deploy ${a}\n${b}`, redact)).not.toContain(a);
      expect(failingLine(`FAIL deploy ${a}\u0000${b}`, redact)).toBe(`FAIL deploy ${REDACTED}`);
      expect(failingLine(`FAIL deploy ${a}\u001b[0m${b}`, redact)).toBe(`FAIL deploy ${REDACTED}`);
      const encoded = Buffer.from(SECRET).toString('base64');
      expect(failingLine(`FAIL deploy ${encoded}`, redact)).toMatch(/^FAIL deploy \[REDACTED\]/);
      expect(failingLine(`FAIL deploy ${encoded}`, redact)).not.toContain(encoded.slice(0, 12));
    });
  });
});
