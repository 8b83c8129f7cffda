// The GitHub Action's entrypoint (action.yml runs the bundle of this file): the only place in
// src/action that touches the real process and @actions/core.
import * as core from '@actions/core';
import { readVersion } from '../run/version.js';
import { closeInheritedDescriptors } from '../sandbox/descriptors.js';
import { runAction } from './run-action.js';

// What the runner's process left inheritable above stderr would reach every program this one starts,
// every sandboxed command included: closed before anything starts one.
closeInheritedDescriptors();

// The runner cancels a job with SIGINT, then SIGTERM: sessions stop and save their state.
const interrupt = new AbortController();
const onSignal = (signal: NodeJS.Signals) => {
  if (interrupt.signal.aborted) process.exit(130);
  core.warning(`issueloop: ${signal}: stopping and saving state`);
  interrupt.abort(new Error(`interrupted by ${signal}`));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

process.exitCode = await runAction({
  env: process.env,
  cwd: process.env.GITHUB_WORKSPACE || process.cwd(),
  core: {
    getInput: (name) => core.getInput(name),
    setSecret: (secret) => core.setSecret(secret),
    setOutput: (name, value) => core.setOutput(name, value),
    setFailed: (message) => core.setFailed(message),
    notice: (message, properties) => core.notice(message, properties),
    warning: (message, properties) => core.warning(message, properties),
    error: (message, properties) => core.error(message, properties),
    info: (message) => core.info(message),
    startGroup: (name) => core.startGroup(name),
    endGroup: () => core.endGroup(),
    summary: core.summary,
  },
  version: readVersion(),
  interrupt: interrupt.signal,
});
