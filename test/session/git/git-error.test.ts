import { existsSync, readFileSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../../src/core/redact.js';
import {
  classifyGitOutput,
  fetchBranch,
  GitError,
  MAX_STDERR_TAIL,
  remoteBranchSha,
  runGit,
} from '../../../src/session/git/index.js';
import { createGitFixture, type GitFixture } from './git-fixture.js';

const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_URL = `https://x-access-token:${TOKEN}@127.0.0.1:1/x.git`;

let fx: GitFixture;

beforeEach(async () => {
  fx = await createGitFixture();
});

afterEach(async () => {
  await fx.cleanup();
});

async function failure(promise: Promise<unknown>): Promise<GitError> {
  const result = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(result instanceof GitError)) throw new Error(`expected a GitError, got ${String(result)}`);
  return result;
}

function everyText(error: GitError): string {
  return [error.message, error.stderrTail, ...error.args, String(error.stack)].join('\n');
}

/** A remote whose upload-pack first leaves a marker, then hangs: a fetch that stays in flight. */
async function addHangingRemote(): Promise<string> {
  const marker = join(fx.root, 'upload-pack-started');
  const script = join(fx.root, 'slow-upload-pack');
  // The pid, written whole (mv), is that of the sleep: exec keeps it.
  await writeFile(
    script,
    `#!/bin/sh\necho $$ > '${marker}.tmp'\nmv '${marker}.tmp' '${marker}'\nexec sleep 30\n`,
  );
  await chmod(script, 0o755);
  fx.git(fx.checkout, 'remote', 'add', 'slow', fx.origin);
  fx.git(fx.checkout, 'config', 'remote.slow.uploadpack', script);
  return marker;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

async function waitFor(path: string): Promise<void> {
  while (!existsSync(path)) await tick();
}

/** Running, as opposed to gone or a zombie waiting for an init that may be slow to reap it. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // Linux: "<pid> (<comm>) <state> …"
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return existsSync(`/proc/${pid}`) || !existsSync('/proc');
  }
}

describe('classifyGitOutput', () => {
  const cases: Array<[string, string]> = [
    [' ! [rejected]        HEAD -> b (stale info)', 'conflict'],
    ['!\tHEAD:refs/heads/b\t[rejected] (fetch first)', 'conflict'],
    ["fatal: Authentication failed for 'https://github.com/a/b.git/'", 'auth'],
    ["fatal: could not read Username for 'https://github.com': terminal prompts disabled", 'auth'],
    ['git@github.com: Permission denied (publickey).', 'auth'],
    ["fatal: unable to access 'https://github.com/a/b.git/': The requested URL returned error: 401", 'auth'],
    [
      "fatal: unable to access 'https://github.com/a/b.git/': The requested URL returned error: 403",
      'permission',
    ],
    ['remote: Permission to a/b.git denied to someone.', 'permission'],
    ["fatal: unable to access 'https://github.com/a/b.git/': Could not resolve host: github.com", 'network'],
    ['ssh: connect to host github.com port 22: Connection refused', 'network'],
    ['ssh: connect to host github.com port 22: Connection timed out', 'network'],
    ["fatal: couldn't find remote ref refs/heads/nope", 'not_found'],
    [
      "fatal: 'nowhere' does not appear to be a git repository\nfatal: Could not read from remote repository.",
      'not_found',
    ],
    ['fatal: bad revision', 'unknown'],
  ];
  for (const [output, errorClass] of cases) {
    it(`classifies ${JSON.stringify(output)} as ${errorClass}`, () => {
      expect(classifyGitOutput(output).errorClass).toBe(errorClass);
    });
  }
});

describe('runGit failures', () => {
  it('keeps credentials of a remote URL out of every text of the error, and classifies it as network', async () => {
    fx.git(fx.checkout, 'remote', 'add', 'secret', SECRET_URL);
    const error = await failure(fetchBranch(fx.checkout, 'secret', 'main', { env: fx.env }));
    expect(error.errorClass).toBe('network');
    expect(error.code).toBe('git_failed');
    expect(error.exitCode).toBe(128);
    expect(everyText(error)).not.toContain(TOKEN);
    expect(error.args).toContain('secret');
  });

  it('redacts a credential URL given on the command line', async () => {
    const error = await failure(remoteBranchSha(fx.checkout, SECRET_URL, 'main', { env: fx.env }));
    expect(error.errorClass).toBe('network');
    expect(everyText(error)).not.toContain(TOKEN);
    expect(error.message).toContain(REDACTED);
  });

  it('applies a configured redactor to values no pattern knows', async () => {
    const secret = 'plain-looking-secret-value';
    const error = await failure(
      runGit(['rev-parse', '--verify', secret], {
        cwd: fx.checkout,
        env: fx.env,
        redact: createRedactor([secret]),
      }),
    );
    expect(everyText(error)).not.toContain(secret);
    expect(error.errorClass).toBe('unknown');
  });

  it('keeps at most the last MAX_STDERR_TAIL characters of stderr', async () => {
    const long = `refs/heads/${'x'.repeat(3_000)}`;
    const error = await failure(runGit(['rev-parse', '--verify', long], { cwd: fx.checkout, env: fx.env }));
    expect(error.stderrTail.length).toBeLessThanOrEqual(MAX_STDERR_TAIL);
    expect(error.stderrTail.length).toBeGreaterThan(0);
  });

  it('is aborted when the signal aborted before git started', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(
      fetchBranch(fx.checkout, 'origin', 'main', { env: fx.env, signal: controller.signal }),
    );
    expect(error.errorClass).toBe('aborted');
  });

  it('is aborted when the signal aborts while git runs', async () => {
    const marker = await addHangingRemote();
    const controller = new AbortController();
    const pending = failure(
      fetchBranch(fx.checkout, 'slow', 'main', { env: fx.env, signal: controller.signal }),
    );
    await waitFor(marker);
    controller.abort();
    const error = await pending;
    expect(error.errorClass).toBe('aborted');
    expect(error.exitCode).toBeUndefined();
    // What git started goes with it; the test times out if the upload-pack outlives the abort.
    const pid = Number((await readFile(marker, 'utf8')).trim());
    expect(pid).toBeGreaterThan(0);
    while (running(pid)) await tick();
  });

  it('is a timeout when git outlives timeoutMs', async () => {
    await addHangingRemote();
    const error = await failure(fetchBranch(fx.checkout, 'slow', 'main', { env: fx.env, timeoutMs: 200 }));
    expect(error.errorClass).toBe('timeout');
  });

  it('reports a cwd that does not exist without throwing anything but a GitError', async () => {
    const error = await failure(runGit(['status'], { cwd: join(fx.root, 'missing'), env: fx.env }));
    expect(error.errorClass).toBe('unknown');
    expect(error.message).toContain('could not start git');
  });

  it('answers with the exit code when it is declared ok', async () => {
    await writeFile(join(fx.checkout, 'README.md'), 'changed\n');
    const result = await runGit(['diff', '--quiet'], { cwd: fx.checkout, env: fx.env, okExitCodes: [1] });
    expect(result.exitCode).toBe(1);
  });
});
