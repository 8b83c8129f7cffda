import { resolve } from 'node:path';
import type { Config } from '../config/schema.js';
import { UsageError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import { probeSandbox } from '../sandbox/probe.js';
import { createSandboxHost, type SandboxHost, UNSANDBOXED_HOST } from '../sandbox/sandbox-host.js';
import { appKeyFile } from './app-token.js';
import type { Env } from './secrets.js';

/** Said wherever a run's sessions are unconfined: in the log, by doctor, in every tracking comment. */
export const UNSANDBOXED_WARNING =
  'sandbox.mode is none: the agent runs its commands unconfined, with your files, network and processes in reach';

/**
 * The sandbox every session of a run uses. `os` starts a real one first and refuses to run (exit 2,
 * with the fix) when it cannot: a run never falls back to unconfined commands by itself. `cwd` is
 * where a relative ISSUELOOP_APP_PRIVATE_KEY path is resolved from: that file is never readable inside.
 */
export async function openSandbox(config: Config, env: Env, log: Log, cwd: string): Promise<SandboxHost> {
  if (config.sandbox.mode === 'none') {
    log.warn(UNSANDBOXED_WARNING);
    return UNSANDBOXED_HOST;
  }
  const probe = await probeSandbox(env);
  if (!probe.ok) {
    throw new UsageError(
      `the sandbox cannot start: ${probe.problem}. Fix: ${probe.fix}. (Or set sandbox.mode: none to run the agent unsandboxed; see the README's "Security model".)`,
    );
  }
  // Each session starts its own egress proxies and network namespaces (sandbox-host.ts).
  const keyFile = appKeyFile(env, cwd);
  return createSandboxHost(config.sandbox, probe.facts, {
    log,
    protect: [resolve(config.state_dir)],
    ...(keyFile === undefined ? {} : { hide: [keyFile] }),
  });
}
