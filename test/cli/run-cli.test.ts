import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ParsedMessagesRequest,
  reply,
  type ScriptedReply,
} from '../../src/emulators/anthropic/index.js';
import { DEFAULT_TOKEN } from '../../src/emulators/github/index.js';
import { CLI, type CliResult, runBuiltCli } from '../helpers/cli.js';
import { useRunFixture } from './run-fixture.js';

const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });

const fixTypo = reply.toolUse([
  {
    name: 'str_replace_based_edit_tool',
    input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
  },
]);

const servers_ = (script: (request: ParsedMessagesRequest) => ScriptedReply) => run.start(script);

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

describe('issueloop run (the built CLI against the emulators and a real repository)', () => {
  it('resolves an issue: branch pushed, draft PR, summary printed, exit 0, no token in the output', {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue({ title: 'Greeting typo', ...member });
    const { env } = await servers_((request) =>
      request.messages.length === 1 ? fixTypo : reply.text('Fixed the typo.'),
    );
    const result = await runBuiltCli(ARGS, { cwd: run.fx.checkout, env });
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
    let hung = false;
    const { env, anthropic } = await servers_((request) => {
      if (request.messages.length === 1) {
        return reply.toolUse([
          { name: 'str_replace_based_edit_tool', input: { command: 'view', path: 'greet.js' } },
        ]);
      }
      hung = true;
      return { hang: true };
    });
    const child = spawn(process.execPath, [CLI, ...ARGS], {
      cwd: run.fx.checkout,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    while (!hung) await new Promise((resolve) => setTimeout(resolve, 20));
    const sentAt = Date.now();
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expect(Date.now() - sentAt).toBeLessThan(5_000);
    expect(stderr).toContain('SIGINT: stopping');
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
    const result: CliResult = await runBuiltCli(ARGS, { cwd: run.fx.checkout, env: next.env });
    expect(result.code).toBe(0);
    const first = JSON.stringify(next.anthropic.requests.find((r) => r.path === '/v1/messages')?.body);
    expect(first).toContain('CONTEXT FROM INTERRUPTED ATTEMPT:');
  });

  it('a second SIGINT exits with 130 whatever the first was doing, and the claims file still parses', {
    timeout: 60_000,
  }, async () => {
    const number = run.github.addIssue({ title: 'Greeting typo', ...member });
    let hung = false;
    const { env } = await servers_(() => {
      hung = true;
      return { hang: true };
    });
    const child = spawn(process.execPath, [CLI, ...ARGS], {
      cwd: run.fx.checkout,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    while (!hung) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    while (!stderr.includes('stopping')) await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    // Either the graceful stop finished first (lease released, context saved) or the second signal cut
    // it short (lease left to expire, as after a crash): both are states the next run can work from.
    const claims = JSON.parse(await readFile(join(run.fx.checkout, '.issueloop', 'claims.json'), 'utf8'));
    const record = claims.issues[String(number)];
    if (record.lease === null) expect(record.last_outcome).toBe('interrupted');
    else expect(record.lease).toMatchObject({ issue: number });
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
    const result = await runBuiltCli([...ARGS, '--dry-run'], { cwd: run.fx.checkout, env: withoutKey });
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
      const result = await runBuiltCli([...ARGS, '--dry-run', ...json], { cwd: run.fx.checkout, env });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`(#|"number": )${number}\\b`));
      expect(result.stdout).toContain('Leak [REDACTED] here');
      expect(result.stdout).not.toContain(encoded.slice(3, 20));
    }
  });

  it('bad --max-rounds is a usage error (exit 2) naming the flag', { timeout: 60_000 }, async () => {
    const { env } = await servers_(() => reply.text('x'));
    const result = await runBuiltCli([...ARGS, '--max-rounds', 'zero'], { cwd: run.fx.checkout, env });
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
    const result = await runBuiltCli(ARGS, {
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
    const result = await runBuiltCli(ARGS, {
      cwd: run.fx.checkout,
      env: { ...env, ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach the Anthropic API at http://127.0.0.1:1');
    expect(run.github.comments(number)).toEqual([]);
  });
});
