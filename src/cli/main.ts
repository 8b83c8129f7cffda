#!/usr/bin/env node
// The `issueloop` executable: the only place that touches the real process.
import module from 'node:module';

// Refused before anything else loads: an older Node fails later in confusing ways (Map.groupBy).
const { nodeTooOld } = await import('../run/node-version.js');
const tooOld = nodeTooOld(process.versions.node);
if (tooOld) {
  process.stderr.write(tooOld);
  process.exit(1);
}

// Cache compiled code between runs (Node >= 22.1): most of a CLI's start-up is parsing JavaScript.
module.enableCompileCache?.();

// What this process inherited above stderr (a jobserver's pipe, a runner's socket) would reach every
// program it starts, every sandboxed command included: closed before anything starts one.
(await import('../sandbox/descriptors.js')).closeInheritedDescriptors();

/** A yes/no question on the terminal; the prompt goes to stderr so stdout stays the command's output. */
async function confirm(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

// The first SIGINT/SIGTERM asks the run to stop and save its state (exit 130); a second one exits at
// once — every state file is written atomically, so nothing is left half-written.
const interrupt = new AbortController();
const onSignal = (signal: NodeJS.Signals) => {
  if (interrupt.signal.aborted) process.exit(130);
  process.stderr.write(`issueloop: ${signal}: stopping; interrupt again to exit at once\n`);
  interrupt.abort(new Error(`interrupted by ${signal}`));
};
// Only a run (and the demo's run) has state to save; every other command keeps Node's default.
if (['run', 'demo'].some((name) => process.argv.slice(2).includes(name))) {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

// A reader that goes away (`issueloop demo | head -1`) is not an error: like `git log | head`, the
// command goes on quietly to its end (a run saves its state, the demo removes its repository) and
// whatever it would still print is dropped. Without this, Node raises EPIPE as an unhandled error.
const closed = { stdout: false, stderr: false };
for (const name of ['stdout', 'stderr'] as const) {
  process[name].on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    closed[name] = true;
  });
}
const writeTo = (name: 'stdout' | 'stderr') => (text: string) => {
  if (!closed[name]) process[name].write(text);
};

const { runCli, terminalOptions, terminalWidth } = await import('./run-cli.js');
process.exitCode = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  nodeVersion: process.version,
  stdout: writeTo('stdout'),
  stderr: writeTo('stderr'),
  ...(process.stdin.isTTY ? { confirm } : {}),
  interrupt: interrupt.signal,
  ...(process.argv[1] ? { binPath: process.argv[1] } : {}),
  ...terminalOptions(process.env, process.stderr.isTTY === true),
  // Live lines are drawn on stderr: its width is the one they must fit.
  ...(process.stderr.isTTY ? terminalWidth(process.stderr) : {}),
});
