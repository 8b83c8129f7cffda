import { spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBuiltCli, STACK_FRAME } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { createClaimsCheckouts } from './claims-checkouts.js';

const { checkout, cleanup } = createClaimsCheckouts();
const restore: string[] = [];
afterAll(async () => {
  // A directory left without write permission could not be cleaned up.
  await Promise.all(restore.map((dir) => chmod(dir, 0o755)));
  await cleanup();
});

const FIX = 'point state_dir (issueloop.config.yaml, ISSUELOOP_STATE_DIR or --set state_dir=<dir>)';

/** The whole filesystem as it is, under bubblewrap; the tests add what they change. */
const BWRAP = ['bwrap', '--bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
const works = (wrap: string[]) => spawnSync(wrap[0] as string, [...wrap.slice(1), 'true']).status === 0;

/** Runs the CLI with `dir` on a read-only bind mount: EROFS, whoever runs the tests (root included). */
const readOnlyBind = (dir: string) => [...BWRAP, '--ro-bind', dir, dir];
const canMountReadOnly = works(readOnlyBind(tmpdir()));

const isRoot = process.getuid?.() === 0;
/** As root, permissions are not checked: a user namespace where `dir`'s owner is nobody is needed. */
const AS_OTHER_USER = ['bwrap', '--unshare-user', '--uid', '1000', '--gid', '1000', ...BWRAP.slice(1)];
const canDenyPermission = !isRoot || works(AS_OTHER_USER);

/** Makes `dir` unwritable for the CLI (EACCES) and returns how to run it. */
async function withoutWritePermission(dir: string): Promise<string[]> {
  if (!isRoot) {
    await chmod(dir, 0o555);
    restore.push(dir);
    return [];
  }
  // Owned by a user the namespace does not map, mode 755: not writable for the CLI inside it.
  await chown(dir, 12_345, 12_345);
  return AS_OTHER_USER;
}

describe('a state directory issueloop cannot write', () => {
  // Never skipped: a machine without bubblewrap fails here, saying so (.ci/run installs it).
  it('can make a directory read-only or unwritable for the CLI (bubblewrap is installed)', () => {
    expect(canMountReadOnly, 'bwrap --ro-bind must work: apt-get install bubblewrap').toBe(true);
    expect(canDenyPermission, 'bwrap --unshare-user must work').toBe(true);
  });

  it('regression: a read-only state directory fails at once with exit 2, the path and the fix (not after 30 s of lock retries)', async () => {
    const { cwd, file } = await checkout();
    const before = await readFile(file, 'utf8');
    const wrap = readOnlyBind(dirname(file));
    const result = await runBuiltCli(['claims', 'release', '7'], { cwd, wrap });
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `issueloop: cannot write ${file}.lock: read-only file system; ${FIX} at a writable directory\n`,
    });
    expect(await readFile(file, 'utf8')).toBe(before);
    // Listing takes no lock: it still works on a read-only state directory.
    const listed = await runBuiltCli(['claims', '--json'], { cwd, wrap });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({ location: file });
  });

  it('a state directory that cannot be created on a read-only file system is exit 2 naming it', async () => {
    const { cwd } = await checkout();
    const stateDir = `${cwd}/fresh-state`;
    const result = await runBuiltCli(['--set', 'state_dir=fresh-state', 'claims', 'release', '7'], {
      cwd,
      wrap: readOnlyBind(cwd),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `issueloop: cannot write ${stateDir}: read-only file system; ${FIX} at a writable directory\n`,
    );
  });

  it('regression: a state directory without write permission fails at once with exit 2 and says to fix it', async () => {
    const { cwd, file } = await checkout();
    const before = await readFile(file, 'utf8');
    const wrap = await withoutWritePermission(dirname(file));
    const result = await runBuiltCli(['claims', 'reset-failures', '5'], { cwd, wrap });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `issueloop: cannot write ${file}.lock: permission denied (EACCES); fix its permissions for the ` +
        `user running issueloop, or ${FIX} at a directory it can write\n`,
    );
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});

describe('a state path of the wrong kind', () => {
  it('regression: a claims.json that is a directory exits 2 naming it, for every claims command', async () => {
    const { cwd, file } = await checkout();
    await rm(file);
    await mkdir(file);
    for (const args of [['claims'], ['claims', 'release', '7'], ['reset', '--claims', '--yes']]) {
      const result = await runInProcess(args, { cwd });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(`^issueloop: ${file} is a directory, but issueloop keeps a file there; move it away`),
      );
      expect(result.stderr).not.toMatch(STACK_FRAME);
    }
  });

  it('doctor fails its claims check with exit 2 and names the path', async () => {
    const { cwd, file } = await checkout();
    await rm(file);
    await mkdir(file);
    const result = await runInProcess(['doctor', '--json'], { cwd });
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as {
      checks: Array<{ name: string; status: string; detail: string }>;
    };
    expect(report.checks.find((c) => c.name === 'claims')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(`${file} is a directory`),
    });
  });

  it('regression: a state directory that is a file exits 2 naming it', async () => {
    const { cwd, file } = await checkout();
    const stateDir = dirname(file);
    await rm(stateDir, { recursive: true });
    await writeFile(stateDir, 'not a directory\n');
    for (const args of [['claims'], ['claims', 'release', '7']]) {
      const result = await runInProcess(args, { cwd });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toBe(
        `issueloop: ${stateDir} is a file, but issueloop needs a directory there for its state; ` +
          `move the file away or ${FIX} at another directory\n`,
      );
    }
  });
});

describe('a stored lease beyond the maximum TTL', () => {
  it('regression: a lease dated a year ahead is not shown as held, and the command says why', async () => {
    const { cwd, file } = await checkout();
    const state = JSON.parse(await readFile(file, 'utf8'));
    state.issues['7'].lease.expires_at = new Date(Date.now() + 365 * 86_400_000).toISOString();
    await writeFile(file, JSON.stringify(state));
    const result = await runInProcess(['claims', '--json'], { cwd });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { claims: Array<{ issue: number; lease: unknown }> };
    expect(report.claims.find((c) => c.issue === 7)?.lease).toBeNull();
    expect(result.stderr).toMatch(
      /^issueloop: warning: claims: the lease on #7 \(token \d+, host-a:1\) expires at .*, further ahead than the 24 h maximum lease TTL allows: the record is damaged or forged, so it is treated as expired\n$/,
    );
  });
});
