// One process of bench/claims.mjs: from a shared start time until a shared end time, claims its
// own issue and releases it again, timing every call. Prints one JSON line: {ops, claimMs: [...]}.
// Usage: node claims-worker.mjs <claims-file | redis://url> <issue> <start-epoch-ms> <end-epoch-ms>
import { setTimeout as sleep } from 'node:timers/promises';
import { createFileClaimStore } from '../dist/claims/file-claim-store.js';
import { createRedisClaimStore } from '../dist/claims/redis-claim-store.js';

const [file, issue, start, end] = process.argv.slice(2).map((a, i) => (i === 0 ? a : Number(a)));
const clock = { now: () => Date.now() };
const store = file.startsWith('redis://')
  ? createRedisClaimStore({ url: file, repo: 'bench/claims', clock, maxFailures: 3 })
  : createFileClaimStore({ file, clock, maxFailures: 3 });
const owner = `bench-${process.pid}`;
const ms = () => Number(process.hrtime.bigint()) / 1e6;

await sleep(Math.max(0, start - Date.now()));
let ops = 0;
const claimMs = [];
while (Date.now() < end) {
  const before = ms();
  const result = await store.claim(issue, owner, 60_000);
  claimMs.push(ms() - before);
  if (!result.ok) throw new Error(`issue ${issue} is held by ${result.heldBy.owner}`);
  await store.release(result.lease, { outcome: 'resolved' });
  ops += 2;
}
await store.close();
process.stdout.write(`${JSON.stringify({ ops, claimMs })}\n`);
