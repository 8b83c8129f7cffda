import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemMounts, toolDirectories } from '../../src/sandbox/host-paths.js';

/**
 * The host paths a sandbox shows, on directories the test makes: what a PATH entry shows, what it
 * never shows and why, and the system roots as they are on the host.
 */
const base = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-host-paths-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let made = 0;
/** A fresh directory (made with `files`, a name → content map; content `->x` is a symlink to x). */
function dir(files: Record<string, string> = {}): string {
  const at = join(base, `d${++made}`);
  mkdirSync(at, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(at, name, '..'), { recursive: true });
    if (content.startsWith('->')) symlinkSync(content.slice(2), join(at, name));
    else writeFileSync(join(at, name), content);
  }
  return at;
}
function refusals(
  path: string | undefined,
  extra: string[] = [],
  options: Parameters<typeof toolDirectories>[2] = {},
) {
  const refused: [string, string][] = [];
  const shown = toolDirectories(path, extra, { ...options, refused: (d, why) => refused.push([d, why]) });
  return { shown, refused };
}

describe('toolDirectories: what is never shown, and why', () => {
  it('regression: / on PATH is refused as the root, not shown whole', () => {
    const home = dir();
    expect(refusals('/', [], { home })).toEqual({ shown: [], refused: [['/', 'it is the root']] });
  });

  it('says why it leaves out a directory holding the temp dir, or one in a .git directory', () => {
    const tools = dir({ '.git/hooks/x': '' });
    const { shown, refused } = refusals(`${base}/..:${join(tools, '.git', 'hooks')}:${tools}`);
    expect(shown).toEqual([]);
    expect(refused).toEqual([
      [realpathSync(join(base, '..')), 'it holds the temporary directory'],
      [join(tools, '.git', 'hooks'), 'it is in a git directory'],
      [tools, 'it is a git work tree'],
    ]);
  });

  it('regression: a directory named in the settings that is / or holds the home is refused; one in the home is shown', () => {
    const home = dir({ 'tools/x': '' });
    const { shown, refused } = refusals(undefined, ['/', base, join(home, 'tools')], { home });
    expect(shown).toEqual([join(home, 'tools')]);
    expect(refused).toEqual([
      ['/', 'it is or holds the home'],
      [base, 'it is or holds the home'],
    ]);
    // Without a home to compare with, / is still never shown.
    expect(refusals(undefined, ['/'])).toEqual({ shown: [], refused: [['/', 'it is or holds the home']] });
  });

  it('regression: a home, protected directory or temp dir reached through a symlink is matched as the real path', () => {
    const real = dir({ '.ssh/bin/x': '', 'checkout/bin/x': '' });
    const links = dir({ home: `->${real}`, checkout: `->${join(real, 'checkout')}` });
    const { shown, refused } = refusals(`${join(real, '.ssh', 'bin')}:${join(real, 'checkout', 'bin')}`, [], {
      home: join(links, 'home'),
      protect: [join(links, 'checkout')],
    });
    expect(shown).toEqual([]);
    expect(refused.map(([, why]) => why)).toEqual([
      'it is in ~/.ssh',
      `it is, holds or lies in ${join(real, 'checkout')}`,
    ]);
    // The same directories, neither home nor protected: shown.
    expect(toolDirectories(`${join(real, '.ssh', 'bin')}:${join(real, 'checkout', 'bin')}`)).toHaveLength(2);
  });

  it("regression: issueloop's own temp files are left out when TMPDIR is reached through a symlink", () => {
    const proxies = dir({ 'issueloop-egress-x/bin/x': '' });
    const tmp = join(dir({ tmp: `->${proxies}` }), 'tmp');
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const { shown, refused } = refusals(join(proxies, 'issueloop-egress-x', 'bin'));
      expect(shown).toEqual([]);
      expect(refused).toEqual([
        [join(proxies, 'issueloop-egress-x', 'bin'), "it is in issueloop's own temporary files"],
      ]);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });
});

describe('toolDirectories: what a PATH shows', () => {
  it('skips a relative or empty PATH entry (it would name whatever the current directory holds)', () => {
    const tools = dir({ x: '' });
    expect(toolDirectories(`${relative(process.cwd(), tools)}::.`)).toEqual([]);
    expect(toolDirectories(undefined)).toEqual([]);
    expect(toolDirectories(tools)).toEqual([tools]);
  });

  it('shows at most 64 directories', () => {
    const many = Array.from({ length: 70 }, () => dir());
    const shown = toolDirectories(many.join(':'));
    expect(shown).toHaveLength(64);
    expect(many).toEqual(expect.arrayContaining(shown));
  });

  it('shows a directory once, and never one inside another it shows', () => {
    const tools = dir({ 'sub/x': '' });
    expect(toolDirectories(`${join(tools, 'sub')}:${tools}:${tools}`)).toEqual([tools]);
  });

  it("follows a launcher's symlink to its installation, but not a plain file, nor a dangling link, nor into a system root", () => {
    const install = dir({ 'node_modules/pkg/cli.js': '' });
    const project = dir({ 'node_modules/.bin/plain': '' });
    const bin = dir({
      pkg: `->${join(install, 'node_modules', 'pkg', 'cli.js')}`,
      gone: '->/nonexistent/x',
      sh: '->/usr/bin/env',
    });
    const shown = toolDirectories(`${bin}:${join(project, 'node_modules', '.bin')}`);
    expect(shown.sort()).toEqual(
      [bin, join(install, 'node_modules'), join(project, 'node_modules', '.bin')].sort(),
    );
  });

  it('a root is a path prefix only at a separator: /opt/x does not cover /opt/xy', () => {
    const tools = dir({ 'x/a': '', 'xy/b': '' });
    const shown = toolDirectories(`${join(tools, 'x')}:${join(tools, 'xy')}`, [], {
      roots: [join(tools, 'x')],
    });
    expect(shown).toEqual([join(tools, 'xy')]);
  });
});

describe('systemMounts', () => {
  it('binds a directory read-only, keeps a symlink a symlink, and leaves out a file or what is missing', () => {
    const root = dir({ 'usr/x': '', lib: '->usr/lib', file: 'not a directory' });
    expect(
      systemMounts([join(root, 'usr'), join(root, 'lib'), join(root, 'file'), join(root, 'missing')]),
    ).toEqual([
      { kind: 'ro-bind', source: join(root, 'usr'), dest: join(root, 'usr') },
      { kind: 'symlink', target: 'usr/lib', dest: join(root, 'lib') },
    ]);
  });
});
