// The redactor runs on every log line and every ledger write: this measures it on 1 MB of log text
// (JSON log lines, one in ten carrying a percent-encoded URL) with 5 configured secrets, line by line
// and as one block, and on 1 MB of agent prose (one line in ten with `&&`, a character reference and
// a zero-width joiner, which the rendered view decodes; then as Markdown, read twice: rendered-view.ts
// markdownViews), the fastest of 20 rounds each. Prints
// figures; asserts nothing.
//   npm run build && node bench/redact.mjs
import { requireDist } from './lib.mjs';

requireDist('redact.mjs', 'core/redact.js');
const { createRedactor } = await import('../dist/core/redact.js');

const secrets = [
  `ghs_${'k9Xq'.repeat(9)}`,
  `sk-ant-api03-${'Ab3-_'.repeat(18)}AA`,
  'correct-horse-battery-staple',
  'zz-0123456789abcdef-token',
  'p@ss"word\\with-quotes',
];
const redact = createRedactor(secrets);

function logLine(i) {
  const url =
    i % 10 === 0
      ? ` url=https://api.github.com/repos/acme/widgets/issues?labels=issueloop%2Cbug&q=a%20b%3Dc&page=${i}`
      : '';
  return JSON.stringify({
    level: 30,
    time: 1_700_000_000_000 + i,
    run: 'r-20261126-0504',
    issue: 40 + (i % 17),
    msg: `session step ${i}: tool bash ran \`npm test\` (exit 0) in 1.2 s; 14 files changed, 3 model calls${url}`,
  });
}

const lines = [];
let size = 0;
for (let i = 0; size < 1_000_000; i++) {
  const line = logLine(i);
  lines.push(line);
  size += line.length + 1;
}
const block = lines.join('\n');

function proseLine(i) {
  const extra = i % 10 === 5 ? ' Ran `npm ci && npm test` &amp; checked caf&eacute; 👩\u200d💻.' : '';
  return `- step ${i}: changed src/core/file-${i % 40}.ts and its test; all ${i % 90} checks pass.${extra}`;
}
const prose = [];
for (let i = 0, length = 0; length < 1_000_000; i++) {
  prose.push(proseLine(i));
  length += (prose.at(-1)?.length ?? 0) + 1;
}
const proseBlock = prose.join('\n');

/** The fastest of 20 rounds: on a shared machine the minimum is the figure least bent by others' load. */
function measure(name, run) {
  for (let i = 0; i < 3; i++) run(); // warm-up
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  console.log(
    `${name.padEnd(40)} ${best.toFixed(1).padStart(7)} ms per MB  (${(size / 1e6 / (best / 1000)).toFixed(1)} MB/s)`,
  );
}

console.log(
  `bench/redact: ${lines.length} log lines, ${(size / 1e6).toFixed(2)} MB, ${secrets.length} secrets`,
);
measure('line by line (as the logger calls it)', () => {
  for (const line of lines) redact(line);
});
measure('one block (a ledger or PR body)', () => redact(block));
measure('one block of prose, & and U+200D in 1/10', () => redact(proseBlock));
measure('the same prose as Markdown (a PR body)', () => redact(proseBlock, { markdown: true }));

// Adversarial texts an agent can write (its summary is redacted before it is cut): the time for 8x the
// text should be about 8x (linear), never 64x (quadratic: `a-a-a-…` once took 33 s for 250K characters).
for (const [name, unit] of [
  ["'a-' repeated", 'a-'],
  ["'a.' repeated", 'a.'],
  ["'?a' repeated", '?a'],
  ["'a://' repeated", 'a://'],
]) {
  const time = (chars) => {
    const text = unit.repeat(chars / unit.length);
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      redact(text, { markdown: true });
      best = Math.min(best, performance.now() - started);
    }
    return best;
  };
  const small = time(32_000);
  const large = time(256_000);
  console.log(
    `${name.padEnd(20)} 32K chars ${small.toFixed(1).padStart(7)} ms, 256K ${large.toFixed(1).padStart(7)} ms: ${(large / small).toFixed(1)}x for 8x the text`,
  );
}
