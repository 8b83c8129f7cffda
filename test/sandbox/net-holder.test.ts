import { mkdtempSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShell } from '../../src/agent/tools/run-shell.js';
import { PROXY_PORT } from '../../src/sandbox/domain-proxy.js';
import { startNetHolder } from '../../src/sandbox/net-holder.js';
import { createBwrapSandbox } from '../../src/sandbox/sandbox.js';
import { sandboxFacts } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

let dir: string;
let server: Server;
const heard: string[] = [];

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'issueloop-holder-')));
  server = createServer((socket) =>
    socket.setEncoding('utf8').on('data', (chunk: string) => heard.push(chunk)),
  );
  await new Promise<void>((resolve) => server.listen(join(dir, 'egress.sock'), resolve));
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

describe('a network holder', () => {
  it('bridges 127.0.0.1:PROXY_PORT to its socket; once it is gone, commands still join its namespace and reach nothing (fails closed)', async () => {
    const facts = await sandboxFacts();
    const lost: string[] = [];
    const holder = await startNetHolder({
      ...facts,
      ports: [{ port: PROXY_PORT, socket: join(dir, 'egress.sock') }],
      onLost: (why) => lost.push(why),
    });
    const sandbox = createBwrapSandbox({ writable: [dir], net: holder }, facts);
    const shell = (command: string) =>
      runShell(command, {
        cwd: dir,
        env,
        timeoutMs: 20_000,
        maxOutputChars: 10_000,
        signal: new AbortController().signal,
        sandbox,
      });
    const first = await shell(`echo first > /dev/tcp/127.0.0.1/${PROXY_PORT} && readlink /proc/self/ns/net`);
    expect(first.exitCode, first.output).toBe(0);
    await until(() => heard.join('').includes('first'));
    const namespace = first.output.trim();
    expect(namespace).not.toBe(readlinkSync('/proc/self/ns/net'));

    process.kill(holder.pid as number, 'SIGKILL');
    await until(() => lost.length > 0);
    expect(lost[0]).toContain('the network holder ended');
    const after = await shell(
      `readlink /proc/self/ns/net; echo second > /dev/tcp/127.0.0.1/${PROXY_PORT} && echo REACHED`,
    );
    expect(after.output).toContain(namespace);
    expect(after.output).not.toContain('REACHED');
    expect(heard.join('')).not.toContain('second');

    await holder.close();
    expect(lost).toHaveLength(1);
    expect(() => holder.enter('true', [])).toThrow(/closed/);
  });

  it('is stopped by close(): its process is gone', async () => {
    const facts = await sandboxFacts();
    const holder = await startNetHolder({
      ...facts,
      ports: [{ port: PROXY_PORT, socket: join(dir, 'egress.sock') }],
    });
    const pid = holder.pid as number;
    expect(() => process.kill(pid, 0)).not.toThrow();
    await holder.close();
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
