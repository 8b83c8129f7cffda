import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROTECTED_PATHS,
  protectedGlobs,
  protectedPathsWarning,
} from '../../src/config/protected-paths.js';
import { ConfigSchema } from '../../src/config/schema.js';

describe('protected_paths in the config', () => {
  it('defaults to the workflow, action, CODEOWNERS and .gitmodules globs', () => {
    expect(ConfigSchema.parse({}).protected_paths).toEqual([...DEFAULT_PROTECTED_PATHS]);
  });

  it("takes [], globs, and '...' for the defaults", () => {
    expect(ConfigSchema.parse({ protected_paths: [] }).protected_paths).toEqual([]);
    expect(ConfigSchema.parse({ protected_paths: ['...', 'infra/**'] }).protected_paths).toEqual([
      '...',
      'infra/**',
    ]);
  });

  it('refuses what is not a glob, with the path of the entry', () => {
    const parsed = ConfigSchema.safeParse({ protected_paths: ['infra/**', '../up', 'a**'] });
    expect(parsed.success).toBe(false);
    const problems = parsed.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(problems).toEqual([
      'protected_paths.1: a glob cannot contain . or .. segments',
      'protected_paths.2: ** must be a whole segment in a**',
    ]);
  });
});

describe('the globs in force and the warning', () => {
  it("'...' anywhere in the list stands for the defaults, once, in place", () => {
    expect(protectedGlobs(['infra/**', '...', 'infra/**', '...'])).toEqual([
      'infra/**',
      ...DEFAULT_PROTECTED_PATHS,
    ]);
    expect(protectedGlobs(['.github/workflows/**', '...'])).toEqual([...DEFAULT_PROTECTED_PATHS]);
  });

  it('regression: the defaults are the workflows, the actions, each place GitHub reads CODEOWNERS from, and .gitmodules', () => {
    expect(DEFAULT_PROTECTED_PATHS).toEqual([
      '.github/workflows/**',
      '.github/actions/**',
      'CODEOWNERS',
      '.github/CODEOWNERS',
      'docs/CODEOWNERS',
      '.gitmodules',
    ]);
  });

  it('names every default a list leaves out, comma-separated', () => {
    expect(protectedPathsWarning(['infra/**'])).toMatch(
      /^protected_paths leaves out the defaults \.github\/workflows\/\*\*, \.github\/actions\/\*\*, CODEOWNERS, \.github\/CODEOWNERS, docs\/CODEOWNERS, \.gitmodules: /,
    );
  });

  it('regression: [] and a list without the defaults are each warned about, naming what is no longer protected', () => {
    const all = DEFAULT_PROTECTED_PATHS.join(', ');
    expect(protectedPathsWarning([])).toBe(
      `protected_paths: [] turns off the defaults (${all}): the agent's changes there are delivered (workflows and actions run with the repository's secrets on push); add '...' to the list to keep the defaults`,
    );
    const some = DEFAULT_PROTECTED_PATHS.filter((glob) => glob !== '.gitmodules');
    expect(protectedPathsWarning(some)).toBe(
      "protected_paths leaves out the defaults .gitmodules: the agent's changes there are delivered (workflows and actions run with the repository's secrets on push); add '...' to the list to keep the defaults",
    );
    expect(protectedPathsWarning(['...'])).toBeUndefined();
    expect(protectedPathsWarning([...DEFAULT_PROTECTED_PATHS].reverse())).toBeUndefined();
  });
});
