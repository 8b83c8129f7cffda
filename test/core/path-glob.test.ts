import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROTECTED_PATHS,
  protectedGlobs,
  protectedPathsWarning,
} from '../../src/config/protected-paths.js';
import { compileGlob, globProblem } from '../../src/core/path-glob.js';

const covers = (pattern: string, path: string) => compileGlob(pattern).covers(path);

describe('path globs', () => {
  it('regression: ** covers dot-files (path.matchesGlob skips .github/workflows/.x.yml)', () => {
    expect(covers('.github/workflows/**', '.github/workflows/.exfil.yml')).toBe(true);
    expect(covers('.github/workflows/**', '.github/workflows/a/b.yml')).toBe(true);
    expect(covers('*.yml', '.hidden.yml')).toBe(true);
  });

  it('anchors at the root, and covers what lies below a match', () => {
    expect(covers('CODEOWNERS', 'CODEOWNERS')).toBe(true);
    expect(covers('CODEOWNERS', 'src/CODEOWNERS')).toBe(false);
    expect(covers('**/CODEOWNERS', 'src/CODEOWNERS')).toBe(true);
    expect(covers('infra', 'infra/main.tf')).toBe(true);
    expect(covers('/infra/', 'infra/main.tf')).toBe(true);
    expect(covers('infra/**', 'infrastructure/x')).toBe(false);
    expect(covers('infra/*.tf', 'infra/a/main.tf')).toBe(false);
    expect(covers('a/**/b', 'a/b')).toBe(true);
    expect(covers('{infra,ops}/*', 'ops/x')).toBe(true);
    expect(covers('infra/[!a]*', 'infra/b')).toBe(true);
    expect(covers('infra/[!a]*', 'infra/a')).toBe(false);
  });

  it('ignores case (a case-insensitive checkout merges .GitHub into .github)', () => {
    expect(covers('.github/workflows/**', '.GitHub/Workflows/x.yml')).toBe(true);
    expect(covers('CODEOWNERS', 'codeowners')).toBe(true);
  });

  it('matches names with line breaks like any other name', () => {
    expect(covers('.github/workflows/**', '.github/workflows/a\n\nb.yml')).toBe(true);
    expect(covers('*', 'a\nb')).toBe(true);
  });

  it('says which directories lead to what a glob protects', () => {
    const glob = compileGlob('.github/workflows/**');
    expect(glob.leadsTo('.github')).toBe(true);
    expect(glob.leadsTo('.GITHUB/workflows')).toBe(true);
    expect(glob.leadsTo('docs')).toBe(false);
    expect(glob.leadsTo('.github/ISSUE_TEMPLATE')).toBe(false);
  });

  it('refuses what is not a glob', () => {
    expect(globProblem('')).toMatch(/expected a glob/);
    expect(globProblem('../x')).toMatch(/\.\./);
    expect(globProblem('a**')).toMatch(/whole segment/);
    expect(globProblem('a[b')).toMatch(/unclosed \[/);
    expect(globProblem('{a,b')).toMatch(/unclosed \{/);
    expect(globProblem('a\nb')).toMatch(/line break/);
    expect(globProblem('infra/**')).toBeUndefined();
  });
});

describe('protected_paths', () => {
  it("replaces the defaults; '...' stands for them", () => {
    expect(protectedGlobs(['infra/**'])).toEqual(['infra/**']);
    expect(protectedGlobs(['...', 'infra/**'])).toEqual([...DEFAULT_PROTECTED_PATHS, 'infra/**']);
    expect(protectedGlobs([])).toEqual([]);
  });

  it('warns when a list drops defaults, and not otherwise', () => {
    expect(protectedPathsWarning([...DEFAULT_PROTECTED_PATHS])).toBeUndefined();
    expect(protectedPathsWarning(['...', 'infra/**'])).toBeUndefined();
    expect(protectedPathsWarning([])).toMatch(/\[\] turns off the defaults \(\.github\/workflows/);
    expect(protectedPathsWarning(['infra/**'])).toContain('.github/workflows/**');
    expect(protectedPathsWarning(['infra/**'])).toContain("add '...'");
  });
});
