import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_NODE, nodeTooOld } from '../../src/run/node-version.js';
import { CLI, type CliResult, runBuiltCli, runNodeScript, STACK_FRAME } from '../helpers/cli.js';

/**
 * The built CLI with its stdout read like `issueloop … | head -c N` reads it: the reader goes away
 * after `bytes` bytes (0: before anything was written).
 */
function runClosingStdout(
  args: readonly string[],
  options: { bytes: number; env?: Record<string, string> },
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let read = 0;
    if (options.bytes === 0) child.stdout.destroy();
    child.stdout.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read >= options.bytes) child.stdout.destroy();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

describe('a reader that goes away (issueloop … | head)', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'issueloop-pipe-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('regression: `issueloop --help | head -3` ends with 0 and no EPIPE stack trace', async () => {
    for (let i = 0; i < 5; i++) {
      const result = await runClosingStdout(['--help'], { bytes: 0 });
      expect(result.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
      expect(result.stderr).not.toMatch(STACK_FRAME);
      expect(result.code).toBe(0);
    }
  });

  it('regression: `issueloop demo | head -1` ends with 0, quietly, and removes its temporary repository', async () => {
    const result = await runClosingStdout(['demo'], { bytes: 1, env: { TMPDIR: scratch } });
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.code).toBe(0);
    expect((await readdir(scratch)).filter((name) => name.startsWith('issueloop-demo-'))).toEqual([]);
  });
});

/** The built CLI on a Node that says it is `version` (process.versions.node faked before main runs). */
function runOnNode(version: string, args: readonly string[]): Promise<CliResult> {
  const fake = `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`;
  return runNodeScript(CLI, args, { nodeArgs: ['--import', fake] });
}

describe('a Node older than 22.12', () => {
  it('regression: is refused at start with the fix (demo used to exit 0 on Node 20)', async () => {
    const result = await runOnNode('20.20.2', ['demo']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('issueloop needs Node.js 22.12 or newer; this is v20.20.2');
    expect(result.stderr).toContain('npm install --prefix ~/.node24 node@24');
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });

  it("is accepted from 22.12 on, and the bound is package.json's engines", async () => {
    expect(nodeTooOld('22.11.0')).toMatch(/this is v22\.11\.0/);
    expect(nodeTooOld('v18.0.0')).toMatch(/this is v18\.0\.0/);
    expect(nodeTooOld('22.12.0')).toBeUndefined();
    expect(nodeTooOld('23.0.0')).toBeUndefined();
    expect(nodeTooOld('24.11.1')).toBeUndefined();
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.engines.node).toBe(`>=${MIN_NODE.join('.')}`);
    const result = await runOnNode('22.12.0', ['--version']);
    expect(result.code).toBe(0);
  });
});

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
      name: 'regression: the token, the repository and the key missing are named at once (three round trips)',
      args: ['run'],
      env: {},
      says: [/3 prerequisites are missing/, /no GitHub token/, /no repository/, /no Anthropic API key/],
    },
  ];

  for (const c of cases) {
    it(`${c.name}: exit 2 before anything is read`, async () => {
      const result = await runBuiltCli(c.args, { cwd: checkout, env: c.env });
      expect(result.code).toBe(2);
      for (const text of c.says) expect(result.stderr).toMatch(text);
      expect(result.stderr).not.toMatch(STACK_FRAME);
      expect(result.stderr).not.toContain(KEYS.GITHUB_TOKEN);
      // Nothing was started: no state directory, no ledger.
      expect(await readdir(checkout)).not.toContain('.issueloop');
    });
  }

  it('regression: a task run whose Anthropic endpoint nothing answers is exit 1 before any task is tried (all went to [HUMAN])', async () => {
    const result = await runBuiltCli(['run', '--tasks', 'tasks.md'], {
      cwd: checkout,
      env: { ...KEYS, ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach the Anthropic API at http://127.0.0.1:1');
    const status = await runBuiltCli(['status', '--tasks', 'tasks.md'], { cwd: checkout });
    expect(status.stdout).not.toContain('[HUMAN]');
    expect(status.stdout).not.toContain('[FAIL]');
  });

  it('regression: a clone whose origin is github.com/acme/widgets needs no --repo (gh takes it from the remote)', async () => {
    const clone = join(root, 'clone');
    git(root, 'init', '-q', '-b', 'main', clone);
    git(clone, 'remote', 'add', 'origin', 'https://github.com/acme/widgets.git');
    const result = await runBuiltCli(['run'], { cwd: clone, env: {} });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/2 prerequisites are missing/);
    expect(result.stderr).not.toMatch(/no repository/);
  });
});

/**
 * The built CLI on a real terminal: util-linux `script` gives it a pseudo-terminal, and what the
 * terminal shows (stdout and stderr, \r\n line ends) comes back.
 */
function runOnTerminal(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; screen: string }> {
  const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;
  const command = [process.execPath, CLI, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk;
    });
    child.on('error', (err) =>
      reject(new Error(`util-linux script is needed for the terminal tests: ${err.message}`)),
    );
    child.on('close', (code) => resolve({ code, screen }));
  });
}

describe('a terminal', () => {
  const ESC = '\u001b[';

  it('regression: gets readable log lines and the live line, never raw pino JSON', async () => {
    const { code, screen } = await runOnTerminal(['--verbose', 'demo'], { TERM: 'xterm-256color' });
    expect(code).toBe(0);
    expect(screen).toMatch(/round 1: 2 claimed/);
    expect(screen).not.toMatch(/\{"level":\d+/);
    // The live line is drawn and erased in place.
    expect(screen).toContain(`${ESC}J`);
  });

  it('regression: TERM=dumb gets the same readable lines and not one escape sequence', async () => {
    const { code, screen } = await runOnTerminal(['--verbose', 'demo'], { TERM: 'dumb' });
    expect(code).toBe(0);
    expect(screen).toMatch(/round 1: 2 claimed/);
    expect(screen).not.toContain('\u001b');
  });

  it('NO_COLOR keeps the live line but drops the colours', async () => {
    const { code, screen } = await runOnTerminal(['--verbose', 'demo'], {
      TERM: 'xterm-256color',
      NO_COLOR: '1',
    });
    expect(code).toBe(0);
    expect(screen).toContain(`${ESC}J`);
    expect(screen).not.toMatch(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`));
  });

  it('--log-format json on a terminal gives JSON lines; --verbose --quiet is refused', async () => {
    const json = await runOnTerminal(['--log-format', 'json', '--verbose', 'demo'], {
      TERM: 'xterm-256color',
    });
    expect(json.code).toBe(0);
    expect(json.screen).toMatch(/\{"level":30,[^\n]*round 1: 2 claimed/);
    const both = await runBuiltCli(['--verbose', '--quiet', 'status']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(
      /'-q, --quiet' cannot be used with option '-v, --verbose'|cannot be used with/,
    );
  });
});

describe('demo and the global flags', () => {
  it('regression: refuses --config, --repo and --set, which cannot apply to its own repository (silently ignored, exit 0)', async () => {
    for (const flags of [
      ['--config', 'typo.yaml'],
      ['--repo', 'acme/widgets'],
      ['--set', 'workers=2'],
    ]) {
      const result = await runBuiltCli([...flags, 'demo']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flags[0]} cannot apply to it`);
      expect(result.stdout).toBe('');
    }
  });

  it('says that a config file and ISSUELOOP_* settings where it runs are not used', async () => {
    const result = await runBuiltCli(['demo'], { env: { ISSUELOOP_WORKERS: 'lots' } });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'not used by the demo, which brings its own configuration: ISSUELOOP_WORKERS',
    );
  });
});

describe('words and flags the CLI used to take', () => {
  const cases: Array<{ args: string[]; says: string }> = [
    { args: ['help', 'bogus'], says: "help: unknown command 'bogus'" },
    { args: ['help', 'rn'], says: "help: unknown command 'rn' (did you mean run?)" },
    { args: ['claims', 'lst'], says: "unknown command 'claims lst' (did you mean list?)" },
    { args: ['board', 'inti'], says: "unknown command 'board inti' (did you mean init?)" },
    { args: ['run', '--dry-run', '--once'], says: "option '--once' cannot be used with option '--dry-run'" },
    { args: ['run', '--dry-run', '--max-rounds', '3'], says: "cannot be used with option '--dry-run'" },
    {
      args: ['run', '--once', '--max-rounds', '3'],
      says: "option '--once' cannot be used with option '--max-rounds <n>'",
    },
    {
      args: ['reset', '--tasks', 'tasks.md', '--claims'],
      says: "option '--claims' cannot be used with option '--tasks <file>'",
    },
    {
      args: ['run', '--dir', '/nonexistent/checkout'],
      says: '--dir /nonexistent/checkout: no such directory',
    },
    {
      args: ['status', '--dir', '/nonexistent/checkout'],
      says: '--dir /nonexistent/checkout: no such directory',
    },
    { args: ['run', '--dir', 'package.json'], says: '--dir package.json: a file, not a directory' },
  ];
  for (const c of cases) {
    it(`regression: issueloop ${c.args.join(' ')} is refused (exit 2) saying why`, async () => {
      const result = await runBuiltCli(c.args, { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(c.says);
      expect(result.stderr).not.toMatch(STACK_FRAME);
    });
  }
});

describe('JSON a script can rely on', () => {
  it('regression: demo --json names no ledger it has deleted, and its costs are whole micro-dollars', async () => {
    const result = await runBuiltCli(['demo', '--json']);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      ledger: string | null;
      kept: boolean;
      costUsd: number;
      reports: Array<{ costUsd: number }>;
    };
    expect(summary.kept).toBe(false);
    expect(summary.ledger).toBeNull();
    for (const cost of [summary.costUsd, ...summary.reports.map((r) => r.costUsd)]) {
      expect(Math.round(cost * 1e6) / 1e6).toBe(cost);
      expect(String(cost).length).toBeLessThan(12);
    }
  });
});

describe('--json on a failure', () => {
  it('regression: prints the error as JSON on stdout with the exit code (stdout was empty)', async () => {
    const bad = await runBuiltCli(['run', '--json', '--max-rounds', 'lots', '--repo', 'acme/widgets']);
    expect(bad.code).toBe(2);
    const parsed = JSON.parse(bad.stdout) as { error: { message: string; exitCode: number } };
    expect(parsed.error.exitCode).toBe(2);
    expect(parsed.error.message).toContain('--max-rounds');
    const unknown = await runBuiltCli(['status', '--json', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).error.message).toContain("unknown option '--bogus'");
  });
});

describe('where run would fail, said before it runs', () => {
  it('regression: --repo acme/widgets.git is refused with the fix (it was accepted and reached no repository)', async () => {
    const result = await runBuiltCli(['run', '--dry-run', '--repo', 'acme/widgets.git']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('drop the ".git"');
  });

  it('regression: with no git on PATH run says so (it said "not a git checkout")', async () => {
    const nodeOnly = join(tmpdir(), `issueloop-node-only-${process.pid}`);
    await rm(nodeOnly, { recursive: true, force: true });
    execFileSync('mkdir', ['-p', nodeOnly]);
    execFileSync('ln', ['-s', process.execPath, join(nodeOnly, 'node')]);
    try {
      const result = await runBuiltCli(['run', '--repo', 'acme/widgets'], {
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
      const result = await runBuiltCli(['doctor'], { cwd: outside });
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
      const result = await runBuiltCli(['--config', 'bad.yaml', 'status'], { cwd: at });
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
