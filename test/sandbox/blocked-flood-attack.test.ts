import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BLOCKED_DESTINATIONS } from '../../src/sandbox/blocked-requests.js';
import type { WorktreeSandboxes } from '../../src/sandbox/sandbox-host.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { HOST_PATH, scratchSandboxes, shellIn } from '../helpers/sandbox.js';

/**
 * Red team (issue 29, item 4): the report of blocked egress is the maintainer's view of what the agent
 * tried. A command first asks the proxy for 300 distinct names no allowlist has (refused before any
 * lookup: nothing is resolved or dialled), then for the destination it really wanted.
 */
const FLOOD = 300;
const REAL = 'exfil.attacker.invalid:443';
let root: string;
let worktree: string;
let sandboxes: WorktreeSandboxes;
const log = createMemoryLog();

const SCRIPT = `
import { connect } from 'node:net';
const ask = (authority) => new Promise((resolve) => {
  const socket = connect(3128, '127.0.0.1', () => socket.write('CONNECT ' + authority + ' HTTP/1.1\\r\\nHost: ' + authority + '\\r\\n\\r\\n'));
  socket.on('data', () => socket.destroy());
  socket.on('close', resolve);
  socket.on('error', resolve);
});
for (let i = 0; i < ${FLOOD}; i++) await ask('noise-' + i + '.invalid:443');
await ask('${REAL}');
console.log('asked');
`;

beforeAll(async () => {
  ({ root, worktree, sandboxes } = await scratchSandboxes('issueloop-flood-', {
    files: { 'flood.mjs': SCRIPT },
    log,
  }));
  const result = await shellIn(
    sandboxes.commands,
    worktree,
    'node flood.mjs',
    { PATH: HOST_PATH },
    { timeoutMs: 60_000, maxOutputChars: 1000 },
  );
  if (result.output.trim() !== 'asked') throw new Error(result.output);
}, 120_000);

afterAll(async () => {
  await sandboxes?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a flood of refused destinations', () => {
  it('red: the destination asked for after 50 others is in no report (tally, PR body, ledger)', () => {
    const listed = sandboxes.blocked().map((entry) => entry.destination);
    expect(listed.length).toBe(MAX_BLOCKED_DESTINATIONS);
    // Expected: the overflow is kept apart (or the list says how many more there were), so the
    // destination the agent really wanted is not hidden behind noise it made first.
    expect(listed).toContain(REAL);
  });

  it("red: the harness's log takes one warning per distinct destination, without bound", () => {
    const warned = log.entries.filter((entry) => entry.level === 'warn' && entry.fields.role === 'commands');
    expect(warned.length).toBeGreaterThan(0);
    // Expected: bounded like the tally (a sandboxed loop would otherwise fill the log and the
    // harness's memory: one remembered key per name it makes up).
    expect(warned.length).toBeLessThanOrEqual(MAX_BLOCKED_DESTINATIONS + 1);
  });
});

describe('what the flood leaves out of the list', () => {
  it('is counted: every refusal is in a listed count or in blockedOthers', () => {
    const listed = sandboxes.blocked().reduce((sum, entry) => sum + entry.count, 0);
    expect(listed + (sandboxes.blockedOthers?.() ?? 0)).toBe(FLOOD + 1);
  });
});
