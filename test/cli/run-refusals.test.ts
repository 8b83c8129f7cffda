import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_FRAME } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';

// What `issueloop run` (and the commands around it) refuse before doing anything: the CLI's own entry
// in this process; the built binary's start-up is covered by cli.test.ts and edge-cases.test.ts.

describe('prerequisites a run can never work without', () => {
  let root: string;
  let checkout: string;
  const KEYS = {
    GITHUB_TOKEN: 'ghp_edgeCases0123456789abcdefghijklmnop',
    ANTHROPIC_API_KEY: 'sk-ant-api03-edge',
  };
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: root } });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'issueloop-prereq-'));
    checkout = join(root, 'widgets');
    git(root, 'init', '-q', '-b', 'main', checkout);
    await writeFile(join(checkout, 'tasks.md'), '## Docs\n- Write a README\n');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const cases: Array<{ name: string; args: string[]; env: Record<string, string>; says: RegExp[] }> = [
    {
      name: 'regression: ANTHROPIC_BASE_URL=notaurl on a task run (every task failed as error:unknown, exit 0)',
      args: ['run', '--tasks', 'tasks.md'],
      env: { ...KEYS, ANTHROPIC_BASE_URL: 'notaurl' },
      says: [/ANTHROPIC_BASE_URL is not an http\(s\) URL: "notaurl"/, /https:\/\/api\.anthropic\.com/],
    },
    {
      name: 'ANTHROPIC_BASE_URL=notaurl on an issue run',
      args: ['run', '--repo', 'acme/widgets'],
      env: { ...KEYS, ANTHROPIC_BASE_URL: 'notaurl' },
      says: [/ANTHROPIC_BASE_URL is not an http\(s\) URL/],
    },
    {
      name: 'regression: GITHUB_API_URL=not-a-url (exit 1 after 5 s of retries, never naming it)',
      args: ['run', '--repo', 'acme/widgets'],
      env: { ...KEYS, GITHUB_API_URL: 'not-a-url' },
      says: [/GITHUB_API_URL is not an http\(s\) URL: "not-a-url"/],
    },
    {
      name: 'GITHUB_GRAPHQL_URL=ftp://… on a dry run',
      args: ['run', '--dry-run', '--repo', 'acme/widgets'],
      env: { ...KEYS, GITHUB_GRAPHQL_URL: 'ftp://example.com/graphql' },
      says: [/GITHUB_GRAPHQL_URL is not an http\(s\) URL/],
    },
    {
      name: 'newcomer: an ANTHROPIC_API_KEY holding a newline is named with the fix, not sent to be refused',
      args: ['run', '--repo', 'acme/widgets'],
      env: { ...KEYS, ANTHROPIC_API_KEY: `${KEYS.ANTHROPIC_API_KEY}\n` },
      says: [
        /ANTHROPIC_API_KEY contains a newline \(at its end\): a key is one line without spaces/,
        /tr -d/,
      ],
    },
    {
      name: 'regression: the token, the repository and the key missing are named at once (three round trips)',
      args: ['run'],
      env: {},
      says: [/3 prerequisites are missing/, /no GitHub token/, /no repository/, /no Anthropic API key/],
    },
  ];

  for (const c of cases) {
    it(`${c.name}: exit 2 before anything is read`, async () => {
      const result = await runInProcess(c.args, { cwd: checkout, env: c.env });
      expect(result.code).toBe(2);
      for (const text of c.says) expect(result.stderr).toMatch(text);
      expect(result.stderr).not.toMatch(STACK_FRAME);
      expect(result.stderr).not.toContain(KEYS.GITHUB_TOKEN);
      // Nothing was started: no state directory, no ledger.
      const entries = await readdir(checkout);
      expect(entries).toContain('tasks.md');
      expect(entries).not.toContain('.issueloop');
    });
  }

  it('regression: a task run whose Anthropic endpoint nothing answers is exit 1 before any task is tried (all went to [HUMAN])', async () => {
    const result = await runInProcess(['run', '--tasks', 'tasks.md'], {
      cwd: checkout,
      env: { ...KEYS, ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach the Anthropic API at http://127.0.0.1:1');
    const status = await runInProcess(['status', '--tasks', 'tasks.md'], { cwd: checkout });
    // The task is listed, untried.
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/\[\.\.\.\] 1\. Write a README/);
    expect(status.stdout).not.toContain('[HUMAN]');
    expect(status.stdout).not.toContain('[FAIL]');
  });

  it('regression: a clone whose origin is github.com/acme/widgets needs no --repo (gh takes it from the remote)', async () => {
    const clone = join(root, 'clone');
    git(root, 'init', '-q', '-b', 'main', clone);
    git(clone, 'remote', 'add', 'origin', 'https://github.com/acme/widgets.git');
    const result = await runInProcess(['run'], { cwd: clone, env: {} });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/2 prerequisites are missing/);
    expect(result.stderr).not.toMatch(/no repository/);
  });
});

describe('where run would fail, said before it runs', () => {
  it('regression: --repo acme/widgets.git is refused with the fix (it was accepted and reached no repository)', async () => {
    const result = await runInProcess(['run', '--dry-run', '--repo', 'acme/widgets.git']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('drop the ".git"');
  });

  it('regression: with no git on PATH run says so (it said "not a git checkout")', async () => {
    const nodeOnly = join(tmpdir(), `issueloop-node-only-${process.pid}`);
    await rm(nodeOnly, { recursive: true, force: true });
    execFileSync('mkdir', ['-p', nodeOnly]);
    execFileSync('ln', ['-s', process.execPath, join(nodeOnly, 'node')]);
    try {
      const result = await runInProcess(['run', '--repo', 'acme/widgets'], {
        env: { PATH: nodeOnly, GITHUB_TOKEN: 'ghp_x', ANTHROPIC_API_KEY: 'sk-ant-x' },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('git is not on PATH');
    } finally {
      await rm(nodeOnly, { recursive: true, force: true });
    }
  });

  it('regression: doctor outside a git checkout warns that run needs one (it passed)', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'issueloop-outside-'));
    try {
      const result = await runInProcess(['doctor'], { cwd: outside });
      expect(result.stdout).toMatch(/warn\s+checkout\s+.* is not a git checkout/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('a YAML mistake', () => {
  it('regression: names its position once and does not end with a colon', async () => {
    const at = await mkdtemp(join(tmpdir(), 'issueloop-yaml-'));
    try {
      await writeFile(join(at, 'bad.yaml'), 'repo: acme/widgets\nworkers: [1\n');
      const result = await runInProcess(['--config', 'bad.yaml', 'status'], { cwd: at });
      expect(result.code).toBe(2);
      const line = result.stderr.split('\n').find((l) => l.includes('invalid YAML')) ?? '';
      expect(line.match(/at line \d+, column \d+/g)).toHaveLength(1);
      expect(line).not.toMatch(/:\s*\[bad\.yaml\]$/);
      expect(line).toMatch(
        /invalid YAML at line 3, column 1: Flow sequence in block collection .*\[bad\.yaml\]$/,
      );
    } finally {
      await rm(at, { recursive: true, force: true });
    }
  });
});
describe('--json on a failure', () => {
  it('regression: prints the error as JSON on stdout with the exit code (stdout was empty)', async () => {
    const bad = await runInProcess(['run', '--json', '--max-rounds', 'lots', '--repo', 'acme/widgets']);
    expect(bad.code).toBe(2);
    const parsed = JSON.parse(bad.stdout) as { error: { message: string; exitCode: number } };
    expect(parsed.error.exitCode).toBe(2);
    expect(parsed.error.message).toContain('--max-rounds');
    const unknown = await runInProcess(['status', '--json', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).error.message).toContain("unknown option '--bogus'");
  });
});
