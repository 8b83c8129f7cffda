#!/usr/bin/env node
// The `issueloop` executable: the only place that touches the real process.
import module from 'node:module';

// Cache compiled code between runs (Node >= 22.1): most of a CLI's start-up is parsing JavaScript.
module.enableCompileCache?.();

const { runCli } = await import('./run-cli.js');
process.exitCode = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  nodeVersion: process.version,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
