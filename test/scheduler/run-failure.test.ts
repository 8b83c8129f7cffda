import { describe, expect, it } from 'vitest';
import { IssueloopError } from '../../src/core/errors.js';
import { createSeededRandom } from '../../src/core/random.js';
import { createRunFailureMonitor } from '../../src/scheduler/run-failure.js';
import type { SessionReport } from '../../src/session/session-report.js';

const ended = (outcome: string, reason: string, model = 'claude-sonnet-5-5') =>
  ({ issue: 1, outcome, reason, model }) as SessionReport;

describe("the run's judge of failures that are not the issue's", () => {
  it("a model credential's permission is the run's at once, and names the model to fix", () => {
    const monitor = createRunFailureMonitor(createSeededRandom(1));
    const cause = monitor.judge(
      ended(
        'error:permission',
        'permission_error: Your API key does not have permission to use the specified resource.',
      ),
    );
    expect(cause?.errorClass).toBe('permission');
    expect(cause?.fix).toContain('claude-sonnet-5-5');
    expect(cause?.fix).toContain('ANTHROPIC_API_KEY');
  });

  it("GitHub refusing the token a write is the run's only when the session before ended the same way", () => {
    const monitor = createRunFailureMonitor(createSeededRandom(1));
    const refused = ended(
      'error:permission',
      'opening the pull request failed: Resource not accessible by integration',
    );
    expect(monitor.judge(refused)).toBeUndefined();
    const cause = monitor.judge(refused);
    expect(cause?.errorClass).toBe('permission');
    // Only an installation token (an App's, or the Actions token) gets this answer from GitHub.
    expect(cause?.fix).toMatch(/GitHub App the Contents, Issues and Pull requests/);
    expect(cause?.fix).toMatch(/workflow's `permissions:` block/);
    expect(cause?.fix).not.toMatch(/GH_TOKEN|gh auth login/);
  });

  it("a file the agent may not touch (EACCES) is the issue's, however often", () => {
    const monitor = createRunFailureMonitor(createSeededRandom(1));
    const local = ended('error:permission', "EACCES: permission denied, open 'build/out.js'");
    expect(monitor.judge(local)).toBeUndefined();
    expect(monitor.judge(local)).toBeUndefined();
  });

  it('three in a row end the run naming the cause; a session that ends otherwise clears the count', () => {
    const monitor = createRunFailureMonitor(createSeededRandom(1));
    const revoked = ended('error:auth', 'authentication_error: invalid x-api-key');
    monitor.judge(revoked);
    monitor.judge(revoked);
    monitor.judge(ended('resolved', 'draft PR opened'));
    expect(monitor.holdMs()).toBe(0);
    for (let i = 0; i < 3; i += 1) monitor.judge(revoked);
    expect(() => monitor.holdMs()).toThrow(IssueloopError);
    expect(() => monitor.holdMs()).toThrow(/3 sessions in a row stopped by a refused credential/);
  });

  it("a suspended GitHub App is the run's at once, and the fix names the App, not GITHUB_TOKEN", () => {
    const monitor = createRunFailureMonitor(createSeededRandom(1));
    const cause = monitor.judge(
      ended(
        'error:auth',
        "list issues failed: the GitHub App 4242's installation on octo-org is suspended: unsuspend it in the settings of octo-org",
      ),
    );
    expect(cause?.errorClass).toBe('auth');
    expect(cause?.fix).toContain('unsuspend it');
    expect(cause?.fix).not.toContain('GITHUB_TOKEN');
  });

  it("regression: a GitHub App's push refused for a permission names the App's permissions, not GH_TOKEN", () => {
    const monitor = createRunFailureMonitor(createSeededRandom(1));
    const refused = ended(
      'error:permission',
      "git push failed: The requested URL returned error: 403. GitHub refused the push to this token, and again a renewed one: give the GitHub App Contents read & write on the repository (and Workflows if the change touches .github/workflows), then accept the new permissions in the installation's settings",
    );
    monitor.judge(refused);
    const cause = monitor.judge(refused);
    expect(cause?.errorClass).toBe('permission');
    expect(cause?.fix).toContain('give the GitHub App the permissions');
    expect(cause?.fix).not.toMatch(/GH_TOKEN|GITHUB_TOKEN|gh auth login/);
  });
});
