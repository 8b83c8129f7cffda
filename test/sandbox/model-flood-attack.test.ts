import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_PORT } from '../../src/sandbox/domain-proxy.js';
import { type ModelProxy, startModelProxy } from '../../src/sandbox/model-proxy.js';
import type { WorktreeSandboxes } from '../../src/sandbox/sandbox-host.js';
import { HOST_PATH, scratchSandboxes, shellIn } from '../helpers/sandbox.js';

/**
 * Red team (issue 29): the egress proxy bounds what one role's connections cost the harness (256 per
 * role and session), the model proxy does not. The `claude` sandbox (or any command it runs) opens
 * connections to 127.0.0.1:MODEL_PORT and holds them: each is a descriptor of the harness's own
 * process, up to the bridge's limit (half the harness's: the bridge spends two per connection), so
 * two sessions' sandboxes leave the harness no descriptor to open a file, spawn git or reach GitHub
 * with. Nothing is forwarded: no request is sent on them, and the upstream is a closed loopback port.
 */
const HELD = 2000;
let root: string;
let worktree: string;
let sandboxes: WorktreeSandboxes;
let proxy: ModelProxy;

const SCRIPT = `
import { connect } from 'node:net';
const sockets = [];
await Promise.all(Array.from({ length: ${HELD} }, () => new Promise((resolve) => {
  const socket = connect(${MODEL_PORT}, '127.0.0.1', resolve);
  socket.on('error', resolve);
  sockets.push(socket);
})));
console.log('holding');
await new Promise((resolve) => setTimeout(resolve, 3000));
process.exit(0);
`;

const harnessFds = () => readdirSync('/proc/self/fd').length;

beforeAll(async () => {
  ({ root, worktree, sandboxes } = await scratchSandboxes('issueloop-modelflood-', {
    files: { 'flood.mjs': SCRIPT },
  }));
  proxy = await startModelProxy({
    upstream: 'http://127.0.0.1:9',
    credential: { scheme: 'x-api-key', value: 'sk-ant-api03-real-flood-0123456789' },
    clientKey: 'placeholder',
  });
}, 60_000);

afterAll(async () => {
  await sandboxes?.close();
  await proxy?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('connections to the model port', () => {
  it('red: a claude sandbox holds one harness descriptor per connection to MODEL_PORT, without bound', async () => {
    const sandbox = await sandboxes.claude({
      home: join(root, 'home'),
      homeBinds: [],
      readOnly: [],
      modelSocket: proxy.socket,
    });
    const before = harnessFds();
    let most = before;
    const sampler = setInterval(() => {
      most = Math.max(most, harnessFds());
    }, 100);
    const result = await shellIn(
      sandbox,
      worktree,
      'node flood.mjs',
      { PATH: HOST_PATH },
      { timeoutMs: 60_000, maxOutputChars: 1000 },
    ).finally(() => clearInterval(sampler));
    expect(result.output).toContain('holding');
    // Expected: bounded like the egress proxy's 256 connections per role.
    expect(most - before).toBeLessThanOrEqual(300);
  }, 90_000);
});
