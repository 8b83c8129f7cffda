import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileLock } from '../../src/claims/file-lock.js';
import {
  type ParsedMessagesRequest,
  reply,
  type ScriptedReply,
} from '../../src/emulators/anthropic/index.js';
import { DEFAULT_TOKEN } from '../../src/emulators/github/index.js';
import { CLI, type CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { useRunFixture } from './run-fixture.js';

const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });

const fixTypo = reply.toolUse([
  {
    name: 'str_replace_based_edit_tool',
    input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
  },
]);

const servers_ = (script: (request: ParsedMessagesRequest) => ScriptedReply) => run.start(script);

/** A promise that settles when the scripted model is asked for the reply that never comes. */
function hangSignal(): { hung: Promise<void>; hang: () => ScriptedReply } {
  let reached = () => {};
  const hung = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return {
    hung,
    hang: () => {
      reached();
      return { hang: true };
    },
  };
}

/** The built CLI as a child whose stderr is collected; `closed` is its exit code. */
function spawnCli(args: readonly string[], cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const output = { stderr: '' };
  let stderrSeen = () => {};
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
    stderrSeen();
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  /** Resolves once stderr holds `text`; rejects if the process ends first. */
  const stderrHas = (text: string) =>
    new Promise<void>((resolve, reject) => {
      stderrSeen = () => {
        if (output.stderr.includes(text)) resolve();
      };
      stderrSeen();
      void closed.then(() => reject(new Error(`exited without printing ${text}: ${output.stderr}`)));
    });
  return { child, output, closed, stderrHas };
}

const ARGS = [
  'run',
  '--repo',
  'octo-org/widgets',
  '--set',
  'empty_rounds=1',
  '--set',
  'poll_interval=1s',
  '--set',
  'verify.command=grep -q "\'hello\'" greet.js',
  '--set',
  'log_level=warn',
];

const member = {
  body: 'greet() says helo',
  author: 'octocat',
  authorAssociation: 'MEMBER' as const,
  labels: ['issueloop'],
};

describe('issueloop run against the emulators and a real repository (signals: the built CLI)', () => {
  it('resolves an issue: branch pushed, draft PR, summary printed, exit 0, no token in the output', {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue({ title: 'Greeting typo', ...member });
    const { env } = await servers_((request) =>
      request.messages.length === 1 ? fixTypo : reply.text('Fixed the typo.'),
    );
    // In-process: the run's logic; the SIGINT tests below and run-concurrency run the built binary.
    const result = await runInProcess(ARGS, { cwd: run.fx.checkout, env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('issueloop run: the backlog stayed empty');
    expect(result.stdout).toMatch(new RegExp(`#${number}\\s+resolved`));
    expect(result.stdout).toContain('resolved 1, failed 0');
    expect(run.github.pulls()).toHaveLength(1);
    expect(
      run.fx.git(run.fx.root, '--git-dir', run.fx.origin, 'branch', '--list', `issueloop/issue-${number}`),
    ).not.toBe('');
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain(DEFAULT_TOKEN);
      expect(text).not.toContain(env.ANTHROPIC_API_KEY);
    }
    const claims = JSON.parse(await readFile(join(run.fx.checkout, '.issueloop', 'claims.json'), 'utf8'));
    expect(claims.issues[String(number)]).toMatchObject({ lease: null, last_outcome: 'resolved' });
  });

  it('SIGINT mid-session: exit 130, lease released, partial context saved; the next run resumes with it', {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue({ title: 'Greeting typo', ...member });
    const { hung, hang } = hangSignal();
    const { env, anthropic } = await servers_((request) => {
      if (request.messages.length === 1) {
        return reply.toolUse([
          { name: 'str_replace_based_edit_tool', input: { command: 'view', path: 'greet.js' } },
        ]);
      }
      return hang();
    });
    const cli = spawnCli(ARGS, run.fx.checkout, env);
    await hung;
    cli.child.kill('SIGINT');
    // The model call never answers: the run got to 130 only by aborting it.
    expect(await cli.closed).toBe(130);
    expect(cli.output.stderr).toContain('SIGINT: stopping');
    const claims = JSON.parse(await readFile(join(run.fx.checkout, '.issueloop', 'claims.json'), 'utf8'));
    const record = claims.issues[String(number)];
    expect(record).toMatchObject({ lease: null, last_outcome: 'interrupted', failure_count: 0 });
    expect(record.partial_context).toContain('greet.js');
    expect(record.interrupted_at).not.toBeNull();
    expect(anthropic.requests.length).toBeGreaterThan(0);

    // The next run: the first prompt carries the interrupted attempt's context.
    const next = await servers_((request) =>
      request.messages.length === 1 ? fixTypo : reply.text('Fixed.'),
    );
    const result: CliResult = await runInProcess(ARGS, { cwd: run.fx.checkout, env: next.env });
    expect(result.code).toBe(0);
    const first = JSON.stringify(next.anthropic.requests.find((r) => r.path === '/v1/messages')?.body);
    expect(first).toContain('CONTEXT FROM INTERRUPTED ATTEMPT:');
  });

  it('a second SIGINT while the graceful stop is still saving exits 130 at once: the lease is left to expire, as after a crash, and the claims file still parses', {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue({ title: 'Greeting typo', ...member });
    const { hung, hang } = hangSignal();
    const { env } = await servers_(hang);
    const cli = spawnCli(ARGS, run.fx.checkout, env);
    await hung;
    const file = join(run.fx.checkout, '.issueloop', 'claims.json');
    // The claim store's lock, held here as another process would: the graceful stop cannot record
    // the outcome before the second signal, so only one end state is possible.
    const code = await createFileLock(file).withLock(async () => {
      cli.child.kill('SIGINT');
      await cli.stderrHas('stopping');
      cli.child.kill('SIGINT');
      return cli.closed;
    });
    expect(code).toBe(130);
    const record = JSON.parse(await readFile(file, 'utf8')).issues[String(number)];
    expect(record.lease).toMatchObject({ issue: number });
    expect(record).toMatchObject({ attempts: 1, last_outcome: null });
  });

  it('--dry-run shows the next round and why the rest is skipped, writing nothing anywhere', {
    timeout: 60_000,
  }, async () => {
    const first = run.github.addIssue({ title: 'First', ...member });
    const second = run.github.addIssue({ title: 'Second', ...member });
    run.github.addUser('stranger');
    const stranger = run.github.addIssue({
      title: 'Do this',
      author: 'stranger',
      authorAssociation: 'NONE',
      labels: ['issueloop'],
    });
    const { env, anthropic } = await servers_(() => reply.text('never asked'));
    const { ANTHROPIC_API_KEY: _key, ...withoutKey } = env;
    const result = await runInProcess([...ARGS, '--dry-run'], { cwd: run.fx.checkout, env: withoutKey });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`would claim, in order:\n  #${first} First\n`);
    expect(result.stdout).toContain(`next in line (beyond \`workers\`):\n  #${second} Second`);
    expect(result.stdout).toMatch(new RegExp(`#${stranger} Do this — untrusted: `));
    expect(result.stdout).toContain(
      'estimated cost: $0.00–$5.00 (session.max_usd per session (no past runs))',
    );
    expect(run.github.requests.every((r) => r.method === 'GET')).toBe(true);
    expect(anthropic.requests).toHaveLength(0);
    await expect(readFile(join(run.fx.checkout, '.issueloop', 'claims.json'))).rejects.toThrow();
    expect(run.fx.git(run.fx.checkout, 'status', '--porcelain', '--ignored')).toBe('');
  });

  it('regression: a percent-encoded token in an issue title is redacted in what the CLI prints, as text and as JSON', {
    timeout: 60_000,
  }, async () => {
    const encoded = [...DEFAULT_TOKEN]
      .map((c, i) => (i % 3 === 1 ? c : `%${c.charCodeAt(0).toString(16)}`))
      .join('')
      .replace(/%/, '%25');
    const number = run.github.addIssue({ title: `Leak ${encoded} here`, ...member });
    const { env } = await servers_(() => reply.text('never asked'));
    for (const json of [[], ['--json']]) {
      const result = await runInProcess([...ARGS, '--dry-run', ...json], { cwd: run.fx.checkout, env });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`(#|"number": )${number}\\b`));
      expect(result.stdout).toContain('Leak [REDACTED] here');
      expect(result.stdout).not.toContain(encoded.slice(3, 20));
    }
  });

  it('bad --max-rounds is a usage error (exit 2) naming the flag', { timeout: 60_000 }, async () => {
    const { env } = await servers_(() => reply.text('x'));
    const result = await runInProcess([...ARGS, '--max-rounds', 'zero'], { cwd: run.fx.checkout, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--max-rounds "zero"');
  });
});

describe('a model API that can never work stops the run before it claims anything', () => {
  it('regression: a key the API refuses is exit 2 naming it, and no issue is claimed or charged a failure', {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue({ title: 'Greeting typo', ...member });
    const { env, anthropic } = await servers_(() => fixTypo);
    const result = await runInProcess(ARGS, {
      cwd: run.fx.checkout,
      env: { ...env, ANTHROPIC_API_KEY: 'sk-ant-api03-refusedByTheServer' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ANTHROPIC_API_KEY was refused by http:\/\/127\.0\.0\.1:\d+ \(HTTP 401\)/);
    expect(result.stderr).not.toContain('sk-ant-api03-refusedByTheServer');
    expect(anthropic.requests.filter((r) => r.path.startsWith('/v1/messages'))).toEqual([]);
    expect(run.github.labelsOf(number)).toEqual(['issueloop']);
    expect(run.github.comments(number)).toEqual([]);
  });

  it('regression: an endpoint nothing answers is exit 1 naming it (every session failed as network before)', {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue({ title: 'Greeting typo', ...member });
    const { env } = await servers_(() => fixTypo);
    const result = await runInProcess(ARGS, {
      cwd: run.fx.checkout,
      env: { ...env, ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach the Anthropic API at http://127.0.0.1:1');
    expect(run.github.comments(number)).toEqual([]);
  });
});
