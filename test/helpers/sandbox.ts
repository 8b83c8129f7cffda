import { probeSandbox } from '../../src/sandbox/probe.js';
import type { HostFacts } from '../../src/sandbox/sandbox.js';
import {
  createSandboxHost,
  type SandboxHost,
  type SandboxHostOptions,
  type SandboxSettings,
} from '../../src/sandbox/sandbox-host.js';

let facts: Promise<HostFacts> | undefined;

/**
 * The host's bubblewrap, probed once per test file. Tests run what the agent runs inside the real
 * sandbox, as a run does; a machine without bwrap fails here with the install command, never skips.
 */
export function sandboxFacts(): Promise<HostFacts> {
  facts ??= probeSandbox(process.env).then((probe) => {
    if (!probe.ok) throw new Error(`tests need a working bubblewrap: ${probe.problem}; fix: ${probe.fix}`);
    return probe.facts;
  });
  return facts;
}

/** The sandbox of a run with default settings (`mode: os`, no network). */
export async function testSandboxHost(
  settings: Partial<SandboxSettings> = {},
  options: SandboxHostOptions = {},
): Promise<SandboxHost> {
  return createSandboxHost(
    { mode: 'os', network: 'none', read_only: [], ...settings },
    await sandboxFacts(),
    options,
  );
}
