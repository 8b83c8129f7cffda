import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCodeIssueSession, fixGreeting } from '../engines/claude-code/claude-code-issue.js';
import { GREETING_TYPO, useSessionRepo } from '../session/git/git-fixture.js';

/**
 * Issue 29: a hostile `claude` and the shell it spawns shared the host's network (they wrote into a
 * loopback Redis, reached loopback HTTP and ::1). Here a stand-in `claude` run by the Claude Code
 * engine in a real session reaches for loopback HTTP on 127.0.0.1 and ::1, directly and through the
 * proxy, itself and from a child shell.
 */
const repo = useSessionRepo(GREETING_TYPO);
const dir = mkdtempSync(join(tmpdir(), 'issueloop-hostile-claude-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a hostile claude and the shell it spawns', () => {
  it("regression: reach no loopback service of the host; the proxy's refusals are the session's, under the claude role", async () => {
    const heard: string[] = [];
    const record = () =>
      createServer((req, res) => {
        heard.push(req.url ?? '');
        res.end('host service');
      });
    const v4 = record();
    const v6 = record();
    await new Promise<void>((resolve) => v4.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => v6.listen(0, '::1', resolve));
    const [p4, p6] = [v4, v6].map((server) => (server.address() as AddressInfo).port);
    const bin = join(dir, 'claude');
    writeFileSync(
      bin,
      [
        '#!/bin/bash',
        `(printf "GET /claude-direct HTTP/1.0\\r\\n\\r\\n" > /dev/tcp/127.0.0.1/${p4}) 2>/dev/null`,
        `(printf "GET /claude-direct6 HTTP/1.0\\r\\n\\r\\n" > /dev/tcp/::1/${p6}) 2>/dev/null`,
        `curl -s -m 5 --noproxy '' -x http://127.0.0.1:3128 http://127.0.0.1:${p4}/claude-proxied > /dev/null`,
        `bash -c "curl -s -m 5 --noproxy '' -p -x http://127.0.0.1:3128 http://[::1]:${p6}/child-tunnel" > /dev/null`,
        'exit 1',
      ].join('\n'),
    );
    chmodSync(bin, 0o755);
    try {
      const { report } = await claudeCodeIssueSession({
        repo,
        bin,
        env: {},
        native: fixGreeting,
      });
      expect(heard).toEqual([]);
      // Both the stand-in's own request and its child shell's tunnel came to the proxy, and stopped there.
      expect(report.blockedRequests).toEqual(
        expect.arrayContaining([
          { role: 'claude', destination: `127.0.0.1:${p4}`, count: 1 },
          { role: 'claude', destination: `[::1]:${p6}`, count: 1 },
        ]),
      );
    } finally {
      v4.close();
      v6.close();
    }
  });
});
