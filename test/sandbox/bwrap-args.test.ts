import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../src/sandbox/bwrap-args.js';
import { installationOf, toolDirectories } from '../../src/sandbox/host-paths.js';
import { sandboxHome, sandboxMounts } from '../../src/sandbox/sandbox.js';
import { createMemoryLog } from '../helpers/memory-log.js';

describe('bwrapArgs', () => {
  it('unshares every namespace, dies with its parent, starts a new session, and keeps the mounts in order', () => {
    const args = bwrapArgs({
      mounts: [
        { kind: 'tmpfs', dest: '/home/me' },
        { kind: 'bind', source: '/home/me/repo/wt', dest: '/home/me/repo/wt' },
      ],
      network: 'own',
      cwd: '/home/me/repo/wt',
      argv: ['bash', '-c', 'echo hi'],
    });
    expect(args.slice(0, 1)).toEqual(['--unshare-all']);
    expect(args).not.toContain('--share-net');
    for (const flag of ['--unshare-user', '--disable-userns']) expect(args).toContain(flag);
    expect(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2)).toEqual([
      '--cap-drop',
      'ALL',
    ]);
    for (const flag of ['--die-with-parent', '--new-session']) expect(args).toContain(flag);
    expect(args.indexOf('--tmpfs')).toBeLessThan(args.indexOf('--bind'));
    expect(args.slice(args.indexOf('--proc'), args.indexOf('--proc') + 2)).toEqual(['--proc', '/proc']);
    expect(args.slice(args.indexOf('--chdir'), args.indexOf('--chdir') + 2)).toEqual([
      '--chdir',
      '/home/me/repo/wt',
    ]);
    expect(args.slice(args.indexOf('--') + 1)).toEqual(['bash', '-c', 'echo hi']);
  });

  it("keeps the network namespace it starts in only when asked (a session holder's, joined with nsenter)", () => {
    const args = bwrapArgs({ mounts: [], network: 'inherit', cwd: '/w', argv: ['true'] });
    expect(args).toContain('--share-net');
    expect(args).toContain('--disable-userns');
  });

  it('lets a nested user namespace be made only in the network holder', () => {
    const args = bwrapArgs({ mounts: [], network: 'own', cwd: '/', argv: ['node'], userns: 'allow' });
    expect(args).not.toContain('--disable-userns');
    expect(args).not.toContain('--share-net');
    // No devpts: unprivileged, bwrap would move into a second user namespace that cannot be joined.
    expect(args).not.toContain('--dev');
  });

  it('regression: every mount kind, the hostname, the seccomp filter and a minimal /dev reach bwrap exactly as meant (a dropped tmpfs or filter runs unconfined)', () => {
    const mounts = [
      { kind: 'ro-bind', source: '/usr', dest: '/usr' },
      { kind: 'symlink', target: 'usr/lib', dest: '/lib' },
      { kind: 'tmpfs', dest: '/home/me' },
      { kind: 'dir', dest: '/home/me/.cache' },
      { kind: 'bind', source: '/w', dest: '/w' },
    ] as const;
    expect(bwrapArgs({ mounts, network: 'own', cwd: '/w', argv: ['sh'], seccompFd: 3 })).toEqual([
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--cap-drop',
      'ALL',
      '--die-with-parent',
      '--new-session',
      '--hostname',
      'issueloop-sandbox',
      ...['--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--tmpfs', '/home/me'],
      ...['--dir', '/home/me/.cache', '--bind', '/w', '/w'],
      ...['--seccomp', '3', '--proc', '/proc', '--dev', '/dev', '--chdir', '/w', '--', 'sh'],
    ]);
    // Without a filter descriptor there is no --seccomp (bwrap would read a descriptor nobody passed).
    const plain = bwrapArgs({ mounts: [], network: 'own', cwd: '/', argv: ['sh'] });
    expect(plain).toContain('--proc');
    expect(plain).not.toContain('--seccomp');
  });
});

describe('sandboxMounts', () => {
  it('puts the empty home and /tmp before the worktree, so the worktree shows through them', () => {
    const mounts = sandboxMounts(
      { writable: ['/tmp/x/worktrees/issue-1'] },
      { bwrap: '/usr/bin/bwrap', nsenter: '/usr/bin/nsenter', path: '/usr/bin', home: '/root' },
    );
    const order = mounts.map((m) => `${m.kind} ${m.dest}`);
    expect(order.indexOf('tmpfs /tmp')).toBeLessThan(order.indexOf('bind /tmp/x/worktrees/issue-1'));
    expect(order.indexOf('tmpfs /root')).toBeLessThan(order.indexOf('bind /tmp/x/worktrees/issue-1'));
    expect(order.some((line) => line.startsWith('ro-bind /usr'))).toBe(true);
    // Nothing of the host's home, var or run is shown.
    expect(order.filter((line) => /^(ro-)?bind \/(root|home|var|run)\b/.test(line))).toEqual([]);
  });

  it('shows no protected PATH directory and logs each one left out once, with why', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-pathlog-')));
    try {
      const checkout = join(root, 'checkout');
      mkdirSync(join(checkout, '.git'), { recursive: true });
      const log = createMemoryLog();
      const facts = {
        bwrap: '/usr/bin/bwrap',
        nsenter: '/usr/bin/nsenter',
        path: `/usr/bin:${checkout}`,
        home: '/root',
      };
      for (let i = 0; i < 3; i++) {
        const mounts = sandboxMounts({ writable: [join(root, 'wt')], protect: [checkout], log }, facts);
        expect(mounts.some((m) => 'source' in m && m.source === checkout)).toBe(false);
      }
      const warned = log.entries.filter((entry) => entry.level === 'warn');
      expect(warned).toHaveLength(1);
      expect(warned[0]?.fields.dir).toBe(checkout);
      expect(warned[0]?.msg).toContain('not shown in the sandbox: it is, holds or lies in');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('never lays a tmpfs over / or a system directory as the home', () => {
    expect(sandboxHome('/')).toBe('/home/issueloop');
    expect(sandboxHome('/usr/local/agent')).toBe('/home/issueloop');
    expect(sandboxHome(undefined)).toBe('/home/issueloop');
    expect(sandboxHome('/home/alice')).toBe('/home/alice');
  });
});

describe('installationOf', () => {
  it('shows an npm package with its dependencies, anything else by its own directory', () => {
    expect(installationOf('/home/me/app/node_modules/@anthropic-ai/claude-code/cli.js')).toBe(
      '/home/me/app/node_modules',
    );
    expect(installationOf('/home/me/.cache/ci/node24/node_modules/node/bin/node')).toBe(
      '/home/me/.cache/ci/node24/node_modules',
    );
    expect(installationOf('/home/me/.nvm/versions/node/v24.1.0/bin/node')).toBe(
      '/home/me/.nvm/versions/node/v24.1.0/bin',
    );
    expect(installationOf('/opt/tools/claude')).toBe('/opt/tools');
  });
});

describe('toolDirectories', () => {
  it('regression: a symlink in ~/bin or rustup in ~/.cargo/bin never shows the home or ~/.cargo', () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-home-')));
    try {
      mkdirSync(join(home, 'bin'));
      mkdirSync(join(home, '.ssh'));
      writeFileSync(join(home, 'bin', 'real-tool'), '#!/bin/sh\n');
      symlinkSync('real-tool', join(home, 'bin', 'tool'));
      mkdirSync(join(home, '.cargo', 'bin'), { recursive: true });
      writeFileSync(join(home, '.cargo', 'credentials.toml'), 'token = "cio_x"\n');
      writeFileSync(join(home, '.cargo', 'bin', 'rustup'), '');
      symlinkSync('rustup', join(home, '.cargo', 'bin', 'cargo'));
      symlinkSync(join(home, '.cargo', 'bin', 'rustup'), join(home, 'bin', 'rustup-link'));
      const dirs = toolDirectories(`${join(home, 'bin')}:${join(home, '.cargo', 'bin')}:/usr/bin`, [], {
        home,
      });
      expect(dirs.sort()).toEqual([join(home, '.cargo', 'bin'), join(home, 'bin')]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('toolDirectories never shows what the sandbox hides', () => {
  it('leaves out a checkout, a git dir, the protected paths, the temp dir, issueloop’s temp files and the home’s secrets, and says why', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-pathrules-')));
    const egress = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-egress-')));
    try {
      const home = join(root, 'home');
      const dir = (...parts: string[]) => {
        const path = join(root, ...parts);
        mkdirSync(path, { recursive: true });
        return path;
      };
      const checkout = dir('checkout');
      dir('checkout', '.git', 'hooks');
      const state = dir('state', 'bin');
      const worktrees = dir('worktrees', 'issue-1', 'bin');
      writeFileSync(join(root, 'worktrees', 'issue-1', '.git'), 'gitdir: x\n');
      const fine = dir('tools', 'bin');
      const cargo = dir('home', '.cargo', 'bin');
      const entries = [
        checkout,
        join(checkout, '.git', 'hooks'),
        dir('checkout', 'scripts'),
        state,
        join(root, 'state'),
        worktrees,
        root,
        realpathSync(tmpdir()),
        egress,
        dir('home', '.ssh', 'bin'),
        dir('home', '.claude', 'local'),
        dir('home', '.config', 'gh'),
        dir('elsewhere', 'repo'),
        fine,
        cargo,
      ];
      writeFileSync(join(root, 'elsewhere', 'repo', '.git'), 'gitdir: x\n');
      const refused = new Map<string, string>();
      const dirs = toolDirectories(entries.join(':'), [], {
        home,
        // As sandbox-host.ts does: the session's checkout, worktrees and state directory.
        protect: [checkout, join(root, 'state'), join(root, 'worktrees')],
        refused: (path, why) => refused.set(path, why),
      });
      expect(dirs).toEqual([fine, cargo].sort());
      for (const entry of entries.filter((entry) => entry !== fine && entry !== cargo))
        expect(refused.get(entry), entry).toBeTruthy();
      expect(refused.get(checkout)).toBe(`it is, holds or lies in ${checkout}`);
      expect(refused.get(join(root, 'elsewhere', 'repo'))).toBe('it is a git work tree');
      expect(refused.get(join(checkout, 'scripts'))).toBe(`it is, holds or lies in ${checkout}`);
      // Not protected, a repository's own subdirectory is a toolchain like any other (~/.nvm is a clone).
      expect(toolDirectories(join(checkout, 'scripts'), [], { home })).toEqual([join(checkout, 'scripts')]);
      expect(toolDirectories(join(checkout, '.git', 'hooks'), [], { home })).toEqual([]);
      // (The home of this test is in the temp dir: that reason comes first.)
      expect(refused.get(realpathSync(tmpdir()))).toMatch(/^it holds the (home|temporary directory)$/);
      expect(toolDirectories(realpathSync(tmpdir()), [], {})).toEqual([]);
      expect(refused.get(egress)).toBe("it is in issueloop's own temporary files");
      expect(refused.get(join(home, '.ssh', 'bin'))).toBe('it is in ~/.ssh');
      expect(refused.get(root)).toMatch(/^it holds the home|^it is, holds or lies in/);
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(egress, { recursive: true, force: true });
    }
  });

  it('follows no symlink out of a directory it left out, and keeps what sandbox.read_only names', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-pathrules-')));
    try {
      mkdirSync(join(root, 'checkout', '.git'), { recursive: true });
      mkdirSync(join(root, 'tool'));
      writeFileSync(join(root, 'tool', 'x'), '');
      symlinkSync(join(root, 'tool', 'x'), join(root, 'checkout', 'x'));
      expect(toolDirectories(join(root, 'checkout'), [], {})).toEqual([]);
      expect(toolDirectories('', [join(root, 'checkout')], {})).toEqual([
        join(root, 'checkout'),
        join(root, 'tool'),
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
