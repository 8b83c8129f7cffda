import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Log } from '../core/logger.js';
import { type BlockedTally, MAX_BLOCKED_DESTINATIONS, type SandboxRole } from './blocked-requests.js';
import {
  type EgressNetwork,
  type EgressPolicy,
  type EgressProxy,
  MODEL_PORT,
  PROXY_PORT,
  startEgressProxy,
} from './domain-proxy.js';
import { type NetHolder, startNetHolder } from './net-holder.js';
import type { HostFacts } from './sandbox.js';

/**
 * The network of one session: per role, an egress proxy on a Unix socket of the session's (so the
 * proxy knows whose allowlist and whose tally a request is) and a network holder whose namespace the
 * role's commands join. Everything is stopped by `close()`.
 */
export interface SessionNetwork {
  /** Starts the role's proxy and holder; `modelSocket` is bridged at 127.0.0.1:MODEL_PORT. */
  open(role: SandboxRole, policy: EgressPolicy, modelSocket?: string): Promise<NetHolder>;
  close(): Promise<void>;
}

const openDirs = new Set<string>();
let exitHook = false;

/** Sockets of a session that never closed (the harness crashed) go with the process. */
function rememberDir(dir: string): void {
  openDirs.add(dir);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const left of openDirs) rmSync(left, { recursive: true, force: true });
  });
}

export function openSessionNetwork(input: {
  facts: HostFacts;
  tally: BlockedTally;
  log?: Log | undefined;
  network?: EgressNetwork | undefined;
}): SessionNetwork {
  const dir = mkdtempSync(join(tmpdir(), 'issueloop-egress-'));
  rememberDir(dir);
  const proxies: EgressProxy[] = [];
  const holders: NetHolder[] = [];
  const logged = new Set<string>();
  let quiet = false;
  let closed = false;
  return {
    async open(role, policy, modelSocket) {
      if (closed) throw new Error('the session network is closed');
      const socket = join(dir, `${role}-${proxies.length}.sock`);
      const proxy = await startEgressProxy({
        socket,
        policy,
        ...(input.network ? { network: input.network } : {}),
        onRefused(destination, reason) {
          input.tally.record(role, destination);
          const key = `${role} ${destination}`;
          if (logged.has(key)) return;
          // Bounded like the tally: a loop making up names would fill the log and this set.
          if (logged.size >= MAX_BLOCKED_DESTINATIONS) {
            if (!quiet)
              input.log?.warn(
                { role },
                `sandbox: more than ${MAX_BLOCKED_DESTINATIONS} distinct destinations refused; the next ones are counted in the session's report, not logged`,
              );
            quiet = true;
            return;
          }
          logged.add(key);
          input.log?.warn(
            { role, destination, reason },
            `sandbox: refused ${role}'s request for ${destination}: ${reason}`,
          );
        },
      });
      proxies.push(proxy);
      const holder = await startNetHolder({
        bwrap: input.facts.bwrap,
        nsenter: input.facts.nsenter,
        ports: [
          { port: PROXY_PORT, socket },
          ...(modelSocket ? [{ port: MODEL_PORT, socket: modelSocket }] : []),
        ],
        onLost: (why) =>
          input.log?.warn({ role }, `sandbox: ${why}; ${role} has no network until the session ends`),
      });
      holders.push(holder);
      return holder;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...holders.map((h) => h.close()), ...proxies.map((p) => p.close())]);
      rmSync(dir, { recursive: true, force: true });
      openDirs.delete(dir);
    },
  };
}
