// Start-up cost of the CLI: `issueloop --help` (the executable package.json's bin names, bundled by
// scripts/bundle-cli.mjs; the module-by-module dist/cli/main.js beside it) against a bare `node -e 0`, measured in the same run,
// interleaved so machine noise hits both alike, with telemetry configured too (an OTLP endpoint set:
// `--help` must load none of it). Prints medians and the ratios (the standing target: <= 2x).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/bin/issueloop.js', import.meta.url));
const modules = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!existsSync(cli) || !existsSync(modules)) {
  console.error('bench/startup: dist/ is missing; run `npm run build` first');
  process.exit(1);
}

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const TARGET = 2;

/** Telemetry on: an endpoint nothing listens on (`--help` never sends; loopback only). */
const OTEL_ENV = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };

function timeOnce([args, env]) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: 'ignore', ...(env ? { env } : {}) });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
  return ms;
}

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const variants = {
  'node -e 0': [['-e', '0']],
  'issueloop --help': [[cli, '--help']],
  'issueloop --version': [[cli, '--version']],
  'dist/cli/main --help': [[modules, '--help']],
  '--help, telemetry on': [[cli, '--help'], OTEL_ENV],
};
const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (const args of Object.values(variants)) timeOnce(args); // warm the OS cache and Node's compile cache
for (let i = 0; i < RUNS; i++) {
  for (const [name, args] of Object.entries(variants)) samples[name].push(timeOnce(args));
}

const base = median(samples['node -e 0']);
console.log(`bench/startup: ${RUNS} interleaved runs each, node ${process.version}`);
for (const [name, xs] of Object.entries(samples)) {
  const m = median(xs);
  console.log(
    `  ${name.padEnd(20)} median ${m.toFixed(1).padStart(6)} ms   ${(m / base).toFixed(2)}x node -e 0`,
  );
}
for (const name of ['issueloop --help', '--help, telemetry on']) {
  const ratio = median(samples[name]) / base;
  console.log(
    `startup ratio (${name} / node -e 0): ${ratio.toFixed(2)}x (target <= ${TARGET}x) ${ratio <= TARGET ? 'ok' : 'OVER TARGET'}`,
  );
}
