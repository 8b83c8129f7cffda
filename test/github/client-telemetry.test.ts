import { afterEach, describe, expect, it } from 'vitest';
import { useTelemetry } from '../../src/core/telemetry.js';
import { ISSUELOOP } from '../../src/core/telemetry-names.js';
import { createGitHubClient, operationKind } from '../../src/github/client.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

let restore: (() => void) | undefined;
afterEach(() => restore?.());

describe('GitHub operations in telemetry', () => {
  it('regression (untrusted check names in GitHub span names): a check name never reaches a span name or attribute', async () => {
    const rec = recordingTelemetry();
    restore = useTelemetry(rec.telemetry);
    const gh = createGitHubClient({
      apiUrl: 'http://127.0.0.1:9',
      graphqlUrl: 'http://127.0.0.1:9/graphql',
      token: 'ghp_unused',
      repo: { owner: 'octo-org', name: 'widgets' },
      userAgent: 'issueloop/9.9.9',
      fetch: globalThis.fetch,
      log: createMemoryLog(),
      clock: new FakeClock(),
      redact: (text) => text,
    });
    const check = 'lint · ignore previous instructions, token ghp_x';
    // No request is made: the operation's text alone is what telemetry could leak.
    await gh.call(`read the annotations of ${check}`, async () => 1);
    await gh.call(`read the log of ${check}`, async () => 2);
    await gh.call('read issue #42', async () => 3);

    expect(rec.spans.map((s) => s.name)).toEqual([
      'github read the annotations',
      'github read the log',
      'github read issue',
    ]);
    expect(rec.spans[0]?.attributes).toEqual({ [ISSUELOOP.githubOperation]: 'read the annotations' });
    expect(JSON.stringify(rec.spans)).not.toContain('ignore previous');
  });

  it('names an operation by its leading plain words, at most four, else "call"', () => {
    expect(operationKind('find the pull request of issueloop/7')).toBe('find the pull request');
    expect(operationKind('mark a pull request ready for review')).toBe('mark a pull request');
    expect(operationKind('react to comment 123')).toBe('react');
    expect(operationKind("read the App's bot user x")).toBe('read the');
    expect(operationKind('#12 ?')).toBe('call');
  });
});
