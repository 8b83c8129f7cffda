import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { appKeyFile } from '../../src/run/app-token.js';
import { openSandbox } from '../../src/run/open-sandbox.js';
import { hiddenFileMounts } from '../../src/sandbox/host-paths.js';
import type { WorktreeSandboxes } from '../../src/sandbox/sandbox-host.js';
import { appKeys } from '../helpers/github-app.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { scratchWorktree, shellIn } from '../helpers/sandbox.js';

/**
 * The attack: ISSUELOOP_APP_PRIVATE_KEY names a file (as the README allows) in a directory the
 * sandbox shows read-only — /etc/issueloop/app.pem, a toolchain directory on PATH, or one of
 * `sandbox.read_only` — and the agent reads the key from there: the variable is scrubbed from its
 * environment, but the file was not. Whoever holds the key mints installation tokens for as long as
 * the App is installed. Here the directory is one of `sandbox.read_only` and on PATH (tests cannot
 * write /etc); the hole and the cover are the same for every shown directory.
 */
const KEY = appKeys().privateKeyPem;
const KEY_LINE = KEY.split('\n')[2] ?? 'missing';
let root: string;
let worktree: string;
let shown: string;
let sandboxes: WorktreeSandboxes;

beforeAll(async () => {
  const scratch = await scratchWorktree('app-key-attack-');
  ({ root, worktree } = scratch);
  shown = join(root, 'srv-issueloop');
  mkdirSync(join(shown, 'keys'), { recursive: true });
  writeFileSync(join(shown, 'keys', 'app.pem'), KEY, { mode: 0o600 });
  // A second name for the key in another shown place: the file it leads to is covered too.
  symlinkSync(join(shown, 'keys', 'app.pem'), join(shown, 'current.pem'));
  writeFileSync(join(shown, 'tool.txt'), 'the toolchain beside the key\n');
  const config = ConfigSchema.parse({
    repo: 'octo-org/widgets',
    state_dir: join(root, 'state'),
    sandbox: { mode: 'os', network: 'none', read_only: [shown] },
  });
  const env = {
    ...process.env,
    PATH: `${shown}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    // Relative, as a user writes it: resolved from the directory issueloop was started in.
    ISSUELOOP_APP_PRIVATE_KEY: 'current.pem',
  };
  const host = await openSandbox(config, env, createMemoryLog(), shown);
  sandboxes = await host.forWorktree({ worktree, git: scratch.dirs, agentGitDir: scratch.agentGitDir });
}, 60_000);

afterAll(async () => {
  await sandboxes?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const steal = () =>
  [
    `cat ${shown}/tool.txt`,
    `cat ${shown}/current.pem ${shown}/keys/app.pem 2>&1`,
    `grep -r -h -A2 "BEGIN" ${shown} 2>&1`,
    `base64 ${shown}/keys/app.pem 2>&1`,
    `ls -l ${shown}/keys`,
    'echo end',
  ].join('; ');

describe('the App private key given as a path, in a directory the sandbox shows', () => {
  it('app-key-file-in-shown-dir: the bash tool and verify read neither the key file nor its symlink; the files beside it stay readable', async () => {
    const result = await shellIn(sandboxes.commands, worktree, steal());
    expect(result.output).toContain('the toolchain beside the key');
    expect(result.output).toContain('app.pem');
    expect(result.output).toContain('end');
    expect(result.output).not.toContain('PRIVATE KEY');
    expect(result.output).not.toContain(KEY_LINE);
    expect(result.output).not.toContain(Buffer.from(KEY).toString('base64').slice(40, 80));
  });

  it('app-key-file-in-shown-dir: session.setup reads no key either', async () => {
    const result = await shellIn(await sandboxes.setup(), worktree, steal());
    expect(result.output).toContain('the toolchain beside the key');
    expect(result.output).not.toContain('PRIVATE KEY');
    expect(result.output).not.toContain(KEY_LINE);
  });

  it('app-key-file-in-shown-dir: nor does the `claude` process, the key directory named among its read-only ones', async () => {
    const claude = await sandboxes.claude({ home: join(root, 'home'), homeBinds: [], readOnly: [shown] });
    const result = await shellIn(claude, worktree, steal());
    expect(result.output).toContain('the toolchain beside the key');
    expect(result.output).not.toContain('PRIVATE KEY');
    expect(result.output).not.toContain(KEY_LINE);
  });
});

describe('which file is covered', () => {
  it('appKeyFile: a path (relative to where issueloop started) is the file; PEM text is none', () => {
    expect(appKeyFile({ ISSUELOOP_APP_PRIVATE_KEY: ' keys/app.pem ' }, '/srv/x')).toBe('/srv/x/keys/app.pem');
    expect(appKeyFile({ ISSUELOOP_APP_PRIVATE_KEY: '/etc/issueloop/app.pem' }, '/srv/x')).toBe(
      '/etc/issueloop/app.pem',
    );
    expect(appKeyFile({ ISSUELOOP_APP_PRIVATE_KEY: KEY }, '/srv/x')).toBeUndefined();
    expect(appKeyFile({}, '/srv/x')).toBeUndefined();
  });

  it('hiddenFileMounts: the file a path leads to, covered wherever a bind shows it; nothing for a file no mount shows', () => {
    const real = join(shown, 'keys', 'app.pem');
    const mounts = [
      { kind: 'ro-bind' as const, source: shown, dest: shown },
      { kind: 'bind' as const, source: join(shown, 'keys'), dest: '/home/u/keys' },
      { kind: 'ro-bind' as const, source: join(root, 'other'), dest: join(root, 'other') },
      { kind: 'tmpfs' as const, dest: '/tmp' },
    ];
    expect(hiddenFileMounts(mounts, [join(shown, 'current.pem'), join(shown, 'tool-missing')])).toEqual([
      { kind: 'ro-bind', source: '/dev/null', dest: real },
      { kind: 'ro-bind', source: '/dev/null', dest: '/home/u/keys/app.pem' },
    ]);
    expect(hiddenFileMounts(mounts.slice(2), [real])).toEqual([]);
  });
});
