import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binDirOf, checkOnPath, pathLine } from '../../src/cli/commands/doctor-install.js';
import { runInProcess } from '../helpers/cli-in-process.js';

let root: string;
let prefixBin: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'issueloop-onpath-'));
  // What `npm install -g --prefix <root>/prefix <tgz>` leaves: an executable `issueloop` in <prefix>/bin.
  prefixBin = join(root, 'prefix', 'bin');
  await mkdir(prefixBin, { recursive: true });
  await writeFile(join(prefixBin, 'issueloop'), '#!/bin/sh\n');
  await chmod(join(prefixBin, 'issueloop'), 0o755);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const README = new URL('../../README.md', import.meta.url);

/** The shell lines of the README's "Install" section. */
async function installLines(): Promise<string[]> {
  const text = await readFile(README, 'utf8');
  const section = text.slice(text.indexOf('## Install'), text.indexOf('## First run'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').filter((line) => line.trim() !== '');
}

describe("newcomer: the README's install route ends with issueloop on PATH, or prints the exact PATH line", () => {
  it('doctor, run by its full path from a prefix not on PATH, prints the exact line to add', async () => {
    const binPath = join(prefixBin, 'issueloop');
    const check = await checkOnPath(binPath, { PATH: '/usr/bin:/bin' });
    expect(check).toEqual({
      name: 'on PATH',
      status: 'warn',
      detail: `issueloop is not on PATH: add \`export PATH="${prefixBin}:$PATH"\``,
      fix: `add \`export PATH="${prefixBin}:$PATH"\` to your shell's profile (~/.bashrc, ~/.zshrc), then open a new shell`,
    });
  });

  it('says where issueloop is once that directory is on PATH', async () => {
    const check = await checkOnPath(join(prefixBin, 'issueloop'), { PATH: `/usr/bin:${prefixBin}` });
    expect(check).toEqual({
      name: 'on PATH',
      status: 'ok',
      detail: `issueloop is ${join(prefixBin, 'issueloop')}`,
    });
  });

  it("finds the bin directory of npm's global layout when run as `node …/main.js`", () => {
    expect(binDirOf('/opt/node24/lib/node_modules/issueloop/dist/cli/main.js')).toBe('/opt/node24/bin');
    // The bundled executable package.json's bin names.
    expect(binDirOf('/opt/node24/lib/node_modules/issueloop/dist/bin/issueloop.js')).toBe('/opt/node24/bin');
    expect(binDirOf('/opt/node24/lib/node_modules/issueloop/dist/bin/other.js')).toBeUndefined();
    expect(binDirOf('/home/ada/.npm-global/bin/issueloop')).toBe('/home/ada/.npm-global/bin');
    expect(binDirOf('/home/ada/src/issueloop/dist/cli/main.js')).toBeUndefined();
  });

  it('says nothing for a clone run as `node dist/cli/main.js`, which was never meant to be on PATH', async () => {
    expect(
      await checkOnPath('/home/ada/src/issueloop/dist/cli/main.js', { PATH: '/usr/bin' }),
    ).toBeUndefined();
    const installed = '/opt/node24/lib/node_modules/issueloop/dist/cli/main.js';
    expect((await checkOnPath(installed, { PATH: '/usr/bin' }))?.detail).toBe(
      'issueloop is not on PATH: add `export PATH="/opt/node24/bin:$PATH"`',
    );
  });

  it('is part of the doctor report, and absent when the CLI was not started as a program', async () => {
    const cwd = await mkdtemp(join(root, 'checkout-'));
    const binPath = join(prefixBin, 'issueloop');
    const shown = await runInProcess(['doctor'], { cwd, env: { PATH: '/usr/bin:/bin' }, io: { binPath } });
    expect(shown.stdout).toContain(`issueloop is not on PATH: add \`export PATH="${prefixBin}:$PATH"\``);
    const without = await runInProcess(['doctor'], { cwd, env: { PATH: '/usr/bin:/bin' } });
    expect(without.stdout).toContain('node');
    expect(without.stdout).not.toContain('on PATH');
  });

  it('the README packs outside the clone and ends by printing the same PATH line when issueloop is not found', async () => {
    const lines = await installLines();
    const install = lines.find((line) => line.includes('npm install -g'));
    // The tarball goes to a temporary directory: `npm install -g "./$(npm pack)"` left it in the clone.
    expect(install).toContain('--pack-destination "$pack"');
    expect(install).toMatch(/^pack="\$\(mktemp -d\)" && /);
    const last = lines.at(-1) ?? '';
    expect(last.startsWith('command -v issueloop || echo ')).toBe(true);
    // What the echo prints, once the shell has expanded it, is doctor's line for `$(npm prefix -g)/bin`.
    const printed = last
      .slice(last.indexOf('echo "') + 6, last.lastIndexOf('"'))
      .replaceAll('\\"', '"')
      .replaceAll('\\$', '$');
    expect(printed).toContain(pathLine('$(npm prefix -g)/bin'));
  });
});
