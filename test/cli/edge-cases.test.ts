import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalOptions } from '../../src/cli/terminal-options.js';
import { MIN_NODE, nodeTooOld } from '../../src/run/node-version.js';
import { CLI, type CliResult, runNodeScript, STACK_FRAME } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';

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
  it('regression: `issueloop --help | head -3` ends with 0 and no EPIPE stack trace', async () => {
    for (let i = 0; i < 5; i++) {
      const result = await runClosingStdout(['--help'], { bytes: 0 });
      // Not a word on stderr: an EPIPE would show there as an unhandled 'error' event and its stack.
      expect(result).toMatchObject({ code: 0, signal: null, stderr: '' });
    }
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

/**
 * The built CLI's demo on a real terminal, as `issueloop --verbose demo | head -c 1` runs there:
 * util-linux `script` gives it a pseudo-terminal for stderr (what the terminal shows comes back, \r\n
 * line ends), and stdout goes to a reader that leaves after the first byte. `code` is the CLI's own.
 */
async function demoOnTerminal(
  scratch: string,
  env: Record<string, string>,
): Promise<{ code: number | undefined; screen: string }> {
  const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;
  const pipeline = join(scratch, 'demo-to-head.sh');
  await writeFile(
    pipeline,
    '"$1" "$2" --verbose demo | head -c 1 >/dev/null\necho "issueloop-exit=$PIPESTATUS"\n',
  );
  const command = ['bash', pipeline, process.execPath, CLI].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: scratch, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk;
    });
    child.on('error', (err) =>
      reject(new Error(`util-linux script is needed for the terminal tests: ${err.message}`)),
    );
    child.on('close', () => {
      const exit = /issueloop-exit=(\d+)/.exec(screen)?.[1];
      resolve({ code: exit === undefined ? undefined : Number(exit), screen });
    });
  });
}

const ESC = '\u001b[';
const SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`);

describe('the demo on a terminal, its stdout read by `head -c 1` (one run of the built CLI)', () => {
  let scratch: string;
  let run: { code: number | undefined; screen: string };
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'issueloop-terminal-'));
    run = await demoOnTerminal(scratch, {
      TERM: 'xterm-256color',
      NO_COLOR: '1',
      ISSUELOOP_WORKERS: 'lots',
    });
  }, 60_000);
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('regression: the reader leaving ends it with 0, quietly (no EPIPE stack trace), and its temporary repository is removed', async () => {
    expect(run.code).toBe(0);
    expect(run.screen).toMatch(/round 1: 2 claimed/);
    expect(run.screen).not.toMatch(/EPIPE|Unhandled 'error' event/);
    expect(run.screen).not.toMatch(STACK_FRAME);
    const left = await readdir(scratch);
    expect(left).toContain('demo-to-head.sh');
    expect(left.filter((name) => name.startsWith('issueloop-demo-'))).toEqual([]);
  });

  it('regression: gets readable log lines and the live line, never raw pino JSON', () => {
    expect(run.screen).toMatch(/round 1: 2 claimed/);
    expect(run.screen).not.toMatch(/\{"level":\d+/);
    // The live line is drawn and erased in place.
    expect(run.screen).toContain(`${ESC}J`);
  });

  it('NO_COLOR keeps the live line but drops the colours', () => {
    expect(run.screen).toContain(`${ESC}J`);
    expect(run.screen).not.toMatch(SGR);
  });

  it('says that ISSUELOOP_* settings where it runs are not used', () => {
    expect(run.screen).toContain(
      'not used by the demo, which brings its own configuration: ISSUELOOP_WORKERS',
    );
  });
});

describe('the demo in-process, with the io main.ts gives it', () => {
  it('regression: TERM=dumb gets readable lines and not one escape sequence; demo --json names no ledger it has deleted, and its costs are whole micro-dollars', {
    timeout: 60_000,
  }, async () => {
    const result = await runInProcess(['--verbose', 'demo', '--json'], {
      io: terminalOptions({ TERM: 'dumb' }, true),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/round 1: 2 claimed/);
    expect(result.stderr).not.toContain('\u001b');
    expect(result.stdout).not.toContain('\u001b');
    const document = JSON.parse(result.stdout) as {
      kept: boolean;
      runs: Array<{
        ledger: string | null;
        summary: { costUsd: number; reports: Array<{ costUsd: number }> };
      }>;
    };
    expect(document.kept).toBe(false);
    expect(document.runs).toHaveLength(3);
    for (const { ledger, summary } of document.runs) {
      expect(ledger).toBeNull();
      for (const cost of [summary.costUsd, ...summary.reports.map((r) => r.costUsd)]) {
        expect(Math.round(cost * 1e6) / 1e6).toBe(cost);
        expect(String(cost).length).toBeLessThan(12);
      }
    }
    expect(document.runs[0]?.summary.reports.length).toBeGreaterThan(0);
  });

  it('--verbose --quiet is refused', async () => {
    const both = await runInProcess(['--verbose', '--quiet', 'status']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(
      /'-q, --quiet' cannot be used with option '-v, --verbose'|cannot be used with/,
    );
  });

  it('regression: refuses --config, --repo and --set, which cannot apply to its own repository (silently ignored, exit 0)', async () => {
    for (const flags of [
      ['--config', 'typo.yaml'],
      ['--repo', 'acme/widgets'],
      ['--set', 'workers=2'],
    ]) {
      const result = await runInProcess([...flags, 'demo']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flags[0]} cannot apply to it`);
      expect(result.stdout).toBe('');
    }
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
      const result = await runInProcess(c.args, { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(c.says);
      expect(result.stderr).not.toMatch(STACK_FRAME);
    });
  }
});
