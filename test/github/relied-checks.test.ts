import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { checkPolicy, reliesOn } from '../../src/github/relied-checks.js';

const run = (name: string, slug?: string, id?: number) =>
  ({ kind: 'check_run', name, app: slug === undefined ? null : { slug, ...(id ? { id } : {}) } }) as const;
const status = (name: string) => ({ kind: 'status', name }) as const;

describe('pr.ci_checks: the checks a maintainer relies on', () => {
  it('by default: GitHub Actions check runs and the required checks, nothing else', () => {
    const config = ConfigSchema.parse({ repo: 'o/r' });
    expect(config.pr.ci_checks).toEqual(['app:github-actions', 'required']);
    const policy = checkPolicy(config.pr.ci_checks, [{ context: 'ci/jenkins', appId: null }]);
    expect(reliesOn(policy, run('test', 'github-actions', 15368))).toBe(true);
    expect(reliesOn(policy, run('test', 'evil-app', 7))).toBe(false);
    expect(reliesOn(policy, status('ci/jenkins'))).toBe(true);
    expect(reliesOn(policy, run('ci/jenkins', 'any-app', 9))).toBe(true);
    expect(reliesOn(policy, status('anyone/says'))).toBe(false);
  });

  it('a required check bound to an app is met by that app only, never by a status', () => {
    const policy = checkPolicy(['required'], [{ context: 'deploy', appId: 42 }]);
    expect(reliesOn(policy, run('deploy', 'vercel', 42))).toBe(true);
    expect(reliesOn(policy, run('deploy', 'impostor', 43))).toBe(false);
    expect(reliesOn(policy, status('deploy'))).toBe(false);
  });

  it('without `required` the branch’s required checks do not count; names match exactly', () => {
    const policy = checkPolicy(['app:GitHub-Actions', 'lint'], [{ context: 'ci/jenkins', appId: null }]);
    expect(reliesOn(policy, status('ci/jenkins'))).toBe(false);
    expect(reliesOn(policy, run('build', 'github-actions'))).toBe(true);
    expect(reliesOn(policy, status('lint'))).toBe(true);
    expect(reliesOn(policy, status('Lint'))).toBe(false);
  });

  it('the schema refuses an app entry without a slug, naming the field', () => {
    const parsed = ConfigSchema.safeParse({ repo: 'o/r', pr: { ci_checks: ['app:', ''] } });
    expect(parsed.success).toBe(false);
    const paths = parsed.error?.issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(['pr.ci_checks.0', 'pr.ci_checks.1']);
  });
});
