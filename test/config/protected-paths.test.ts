import { describe, expect, it } from 'vitest';
import { DEFAULT_PROTECTED_PATHS } from '../../src/config/protected-paths.js';
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
