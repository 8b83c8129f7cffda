import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What `npm pack` would put in the tarball (dist/ as the test run built it), without packing. */
function packedFiles(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'silent' },
  });
  const [pack] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
  return (pack?.files ?? []).map((file) => file.path);
}

describe('the published package (.ci/install-check installs it and runs the demo from it)', () => {
  it('regression: ships no source maps (they pointed at a src/ that is not shipped)', () => {
    const files = packedFiles();
    expect(files).toContain('dist/cli/main.js');
    // The executable (package.json's bin), bundled, with its chunks beside it.
    expect(files).toContain('dist/bin/issueloop.js');
    expect(files).toContain('prompts/system.md');
    expect(files).toContain('README.md');
    // The README links to them.
    expect(files).toContain('docs/run.md');
    expect(files).toContain('docs/benchmarks.md');
    expect(files).toContain('LICENSE');
    // What `issueloop init` writes.
    expect(files).toContain('examples/issueloop.config.yaml');
    expect(files.filter((path) => path.endsWith('.map'))).toEqual([]);
    expect(files.filter((path) => /^(src|test|bench)\//.test(path))).toEqual([]);
  });

  it('regression: runs no script when a user installs it (every install warned about `prepare`)', () => {
    const { scripts } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(scripts[hook]).toBeUndefined();
    // The tarball is built when it is packed (and when npm installs a git dependency).
    expect(scripts.prepack).toBe('npm run build');
  });
});
