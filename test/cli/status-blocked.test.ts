import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readStatus, renderStatus } from '../../src/cli/commands/status.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A state directory whose one ledger has these outcome events of issue 4. */
async function ledgerWith(...blocked: unknown[]): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-status-'));
  await mkdir(join(dir, 'runs'));
  const lines = blocked.map((list) =>
    JSON.stringify({
      ts: '2026-11-26T00:00:00Z',
      run: 'r1',
      type: 'outcome',
      issue: 4,
      outcome: 'resolved',
      blockedRequests: list,
    }),
  );
  await writeFile(join(dir, 'runs', 'r1.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

describe('status: blocked network requests from the ledger', () => {
  it("sums an issue's sessions, and takes only well-formed entries, cleaned (a ledger is only a file)", async () => {
    const stateDir = await ledgerWith(
      [{ role: 'setup', destination: 'registry.npmjs.org:443', count: 2 }],
      [
        { role: 'setup', destination: 'registry.npmjs.org:443', count: 3 },
        { role: 'commands', destination: 'a\u001b[2J@team:80', count: 1 },
        { role: 'commands', destination: 'x:1', count: -1 },
        { role: 'commands', destination: 'y:1', count: 1.5 },
        { role: 'commands', destination: 'z:1', count: '9' },
        'not an entry',
      ],
    );
    const status = await readStatus(stateDir, [], 0);
    expect(status.lastRun?.issues[0]?.blockedRequests).toEqual([
      { role: 'setup', destination: 'registry.npmjs.org:443', count: 5 },
      { role: 'commands', destination: 'a\\u{1b}[2J\\u{40}team:80', count: 1 },
    ]);
    expect(renderStatus(status, 0)).toContain(
      '  #4 registry.npmjs.org:443 ×5 (setup), a\\u{1b}[2J\\u{40}team:80 ×1 (commands)\n',
    );
  });
});
