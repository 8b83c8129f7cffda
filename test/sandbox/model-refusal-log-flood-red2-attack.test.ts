import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCodeIssueSession, fixGreeting } from '../engines/claude-code/claude-code-issue.js';
import { GREETING_TYPO, useSessionRepo } from '../session/git/git-fixture.js';

/**
 * Red team, round 2: the egress proxy's refusal log was bounded (50 distinct destinations, then one
 * line: fix of red 23db1fa), the model proxy's was not. Every request the model proxy refuses is a
 * warning in the harness's log, repeats included, each with the agent's own path: a loop in the claude
 * sandbox writes the harness's log as fast as it can send requests to MODEL_PORT (here 300 from a
 * stand-in `claude`; nothing leaves loopback, nothing is forwarded).
 */
const repo = useSessionRepo(GREETING_TYPO);
const dir = mkdtempSync(join(tmpdir(), 'issueloop-red2-logflood-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REQUESTS = 300;

describe('red2: requests the model proxy refuses, in a loop', () => {
  it('red2-model-refusal-log-flood: are logged a bounded number of times, as the egress proxy’s are', async () => {
    const bin = join(dir, 'claude');
    writeFileSync(
      bin,
      [
        '#!/bin/bash',
        `for i in $(seq ${REQUESTS}); do curl -s -m 2 -o /dev/null "$ANTHROPIC_BASE_URL/v1/flood-$((i % 2))"; done`,
        'exit 1',
      ].join('\n'),
    );
    chmodSync(bin, 0o755);
    const { log } = await claudeCodeIssueSession({
      repo,
      bin,
      env: { ANTHROPIC_API_KEY: 'sk-ant-api03-red2-logflood-0123456789' },
      native: fixGreeting,
    });
    const refusals = log.entries.filter((entry) => entry.msg?.includes('the model proxy refused'));
    // The stand-in's requests did reach the proxy (positive evidence), and two distinct ones were made.
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.length).toBeLessThanOrEqual(51);
  }, 120_000);
});
