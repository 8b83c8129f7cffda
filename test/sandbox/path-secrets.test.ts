import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolDirectories } from '../../src/sandbox/host-paths.js';

/**
 * The home's secret locations (host-paths.ts HOME_SECRETS) are never shown: not a PATH directory in
 * one, not one that holds one (a launcher's installation at the top of ~/.config), while the usual
 * toolchain managers' layouts still are.
 */
let root: string;
let home: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-pathsecrets-')));
  home = join(root, 'home');
  mkdirSync(home);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function file(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  return path;
}

describe('PATH directories near the home’s secrets', () => {
  it('refuses a symlink target that holds a secret location, whichever the list names', () => {
    const secrets = [
      ['.config', '.config/gh'],
      ['.config', '.config/git'],
      ['.config', '.config/hub'],
      ['', '.git-credentials'],
      ['', '.netrc'],
      ['', '.npmrc'],
      ['.cargo', '.cargo/credentials.toml'],
      ['.gem', '.gem/credentials'],
      ['.local/share', '.local/share/keyrings'],
      ['', '.claude.json'],
    ];
    for (const [holder = '', secret = ''] of secrets) {
      rmSync(home, { recursive: true, force: true });
      const bin = join(home, 'bin-dir');
      mkdirSync(bin, { recursive: true });
      file(join(home, secret));
      const target = file(join(home, holder, 'launcher.sh'));
      symlinkSync(target, join(bin, 'launcher'));
      const refused = new Map<string, string>();
      const shown = toolDirectories(bin, [], { home, refused: (dir, why) => refused.set(dir, why) });
      expect(shown, secret).toEqual([bin]);
      // (Refused whether the secret exists or not: the first listed one it holds is named.)
      if (holder !== '') expect(refused.get(join(home, holder)), secret).toMatch(/^it holds ~\/\./);
      else expect(refused.get(home), secret).toBe('it holds the home');
    }
  });

  it('refuses a directory in any secret location', () => {
    for (const secret of [
      '.config/git',
      '.terraform.d',
      '.docker',
      '.kube',
      '.local/share/keyrings',
      '.claude',
    ]) {
      const dir = join(home, secret, 'bin');
      mkdirSync(dir, { recursive: true });
      const refused = new Map<string, string>();
      expect(toolDirectories(dir, [], { home, refused: (d, why) => refused.set(d, why) }), secret).toEqual(
        [],
      );
      expect(refused.get(dir)).toBe(`it is in ~/${secret}`);
    }
  });

  it('still shows nvm, pyenv, asdf and pipx layouts beside a full ~/.config', () => {
    file(join(home, '.config', 'gh', 'hosts.yml'));
    file(join(home, '.config', 'git', 'credentials'));
    file(join(home, '.git-credentials'));
    const nvm = join(home, '.nvm', 'versions', 'node', 'v24.1.0', 'bin');
    file(
      join(home, '.nvm', 'versions', 'node', 'v24.1.0', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
    );
    mkdirSync(nvm, { recursive: true });
    file(join(nvm, 'node'));
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(nvm, 'npm'));
    const pyenv = join(home, '.pyenv', 'shims');
    file(join(pyenv, 'python'));
    const asdf = join(home, '.asdf', 'shims');
    file(join(asdf, 'node'));
    const localBin = join(home, '.local', 'bin');
    mkdirSync(localBin, { recursive: true });
    const venvBin = join(home, '.local', 'pipx', 'venvs', 'black', 'bin');
    symlinkSync(file(join(venvBin, 'black')), join(localBin, 'black'));
    const shown = toolDirectories([nvm, pyenv, asdf, localBin].join(':'), [], { home });
    expect(shown).toEqual(
      [
        nvm,
        join(home, '.nvm', 'versions', 'node', 'v24.1.0', 'lib', 'node_modules'),
        pyenv,
        asdf,
        localBin,
        venvBin,
      ].sort(),
    );
  });
});
