// Throughput of the claim stores: claim+release operations per second with 1, 4 and 16 processes,
// for the file store and (when redis-server is installed) the Redis store on a local server with an
// append-only file fsynced on every write. The file store is set against the cost, measured in the
// same run, of a bare write + fsync + rename of a file of the same size (the least any durable store
// must pay per change): the single-process ratio (target <= 3x; store and bare write measured in
// alternating slices of one process). Also prints claim latency p50/p99 under 16 processes.
// Options: --dir <path> (default: a temporary directory; point it at the disk your state_dir uses),
// --seconds <n> per measurement (default 3).
import { execFile } from 'node:child_process';
import { mkdtemp, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { requireDist, startRedis } from './lib.mjs';

const worker = fileURLToPath(new URL('./claims-worker.mjs', import.meta.url));
requireDist('claims', 'claims/file-claim-store.js');
const { createFileClaimStore } = await import('../dist/claims/file-claim-store.js');

const { values } = parseArgs({
  options: { dir: { type: 'string' }, seconds: { type: 'string', default: '3' } },
});
const seconds = Number(values.seconds);
const TARGET = 3;
const root = await mkdtemp(join(values.dir ?? tmpdir(), 'issueloop-bench-claims-'));

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function runWorker(file, issue, start, end) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [worker, file, String(issue), String(start), String(end)], (err, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout)),
    );
  });
}

/** `processes` workers, each on its own issue so every claim succeeds: this measures the store. */
async function measureStore(processes, redisUrl) {
  const file = redisUrl ?? join(root, `claims-${processes}.json`);
  // Leave time for every process to start before the shared window opens.
  const start = Date.now() + 500 + 40 * processes;
  const end = start + seconds * 1000;
  const results = await Promise.all(
    Array.from({ length: processes }, (_, i) => runWorker(file, i + 1, start, end)),
  );
  const ops = results.reduce((sum, r) => sum + r.ops, 0);
  const claimMs = results.flatMap((r) => r.claimMs).sort((a, b) => a - b);
  return { processes, opsPerSecond: ops / seconds, claimMs, bytes: redisUrl ? 0 : (await stat(file)).size };
}

/** What the store pays for the write itself (temp file, fsync, rename), without lock, read or checks. */
async function bareWrite(file, data, n) {
  const tmp = `${file}.${n}`;
  const handle = await open(tmp, 'w');
  await handle.write(data);
  await handle.sync();
  await handle.close();
  await rename(tmp, file);
}

/**
 * The single-process ratio, measured in this process with the store and the bare write taking
 * turns in 100 ms slices, so both see the same disk and machine load (measured one after the other
 * they drifted by up to 40 % between runs).
 */
async function measureRatio(bytes) {
  const store = createFileClaimStore({
    file: join(root, 'ratio.json'),
    clock: { now: () => Date.now() },
    maxFailures: 3,
  });
  const bareFile = join(root, 'bare.json');
  const data = Buffer.alloc(bytes, 'x');
  const totals = { storeOps: 0, storeMs: 0, bareOps: 0, bareMs: 0 };
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    let sliceEnd = performance.now() + 100;
    let t = performance.now();
    while (performance.now() < sliceEnd) {
      const claimed = await store.claim(1, 'bench', 60_000);
      if (!claimed.ok) throw new Error('issue 1 is held');
      await store.release(claimed.lease, { outcome: 'resolved' });
      totals.storeOps += 2;
    }
    totals.storeMs += performance.now() - t;
    sliceEnd = performance.now() + 100;
    t = performance.now();
    while (performance.now() < sliceEnd) await bareWrite(bareFile, data, totals.bareOps++);
    totals.bareMs += performance.now() - t;
  }
  return { storeMsPerOp: totals.storeMs / totals.storeOps, bareMsPerOp: totals.bareMs / totals.bareOps };
}

try {
  const runs = [];
  for (const processes of [1, 4, 16]) runs.push(await measureStore(processes));
  const { storeMsPerOp, bareMsPerOp } = await measureRatio(runs[0].bytes);
  const fsType = await readFile('/proc/mounts', 'utf8')
    .then(
      (m) =>
        m
          .split('\n')
          .find((l) => l.split(' ')[1] === '/')
          ?.split(' ')[2] ?? '?',
    )
    .catch(() => '?');
  console.log(`claims bench: file store in ${root} (root fs ${fsType}), ${seconds} s per measurement`);
  console.log(
    `  bare write+fsync+rename   ${bareMsPerOp.toFixed(2)} ms/op (${runs[0].bytes} bytes); one store op in the same slices ${storeMsPerOp.toFixed(2)} ms`,
  );
  for (const r of runs) {
    console.log(
      `  ${String(r.processes).padStart(2)} process${r.processes === 1 ? ' ' : 'es'}             ${r.opsPerSecond.toFixed(0).padStart(6)} ops/s   ${(1000 / r.opsPerSecond).toFixed(2)} ms/op`,
    );
  }
  const latency = (claimMs) =>
    `p50 ${percentile(claimMs, 50).toFixed(1)} ms, p99 ${percentile(claimMs, 99).toFixed(1)} ms (${claimMs.length} claims)`;
  console.log(`  claim latency under 16 processes: ${latency(runs.at(-1).claimMs)}`);
  const redis = await startRedis();
  if (!redis) {
    console.log('  redis store: skipped (redis-server is not installed: apt-get install redis-server)');
  } else {
    try {
      console.log('  redis store (local redis-server, appendfsync always):');
      const redisRuns = [];
      for (const processes of [1, 4, 16]) redisRuns.push(await measureStore(processes, redis.url));
      for (const [i, r] of redisRuns.entries()) {
        console.log(
          `  ${String(r.processes).padStart(2)} process${r.processes === 1 ? ' ' : 'es'}             ${r.opsPerSecond.toFixed(0).padStart(6)} ops/s   ${(1000 / r.opsPerSecond).toFixed(2)} ms/op   ${(r.opsPerSecond / runs[i].opsPerSecond).toFixed(1)}x the file store`,
        );
      }
      console.log(`  claim latency under 16 processes: ${latency(redisRuns.at(-1).claimMs)}`);
    } finally {
      await redis.stop();
    }
  }
  const ratio = storeMsPerOp / bareMsPerOp;
  const verdict = ratio <= TARGET ? 'ok' : 'over target';
  console.log(
    `single-process ratio (one claim or release / bare write, interleaved): ${ratio.toFixed(2)}x (target <= ${TARGET}x) ${verdict}`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
