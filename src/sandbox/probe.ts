import { accessSync, constants, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { PROXY_PORT } from './domain-proxy.js';
import { startNetHolder } from './net-holder.js';
import { type CommandSandbox, createBwrapSandbox, type HostFacts } from './sandbox.js';
import { spawnSandboxed } from './spawn-sandboxed.js';

export type ProbeResult = { ok: true; facts: HostFacts } | { ok: false; problem: string; fix: string };

export const INSTALL_BWRAP = 'sudo apt-get install bubblewrap   (Fedora: sudo dnf install bubblewrap)';
export const INSTALL_NSENTER = 'sudo apt-get install util-linux   (Fedora: sudo dnf install util-linux-core)';
/** Where nsenter lives when PATH leaves out the system's sbin directories. */
const SYSTEM_PATH = '/usr/bin:/bin:/usr/sbin:/sbin';

/** The first executable `name` on PATH. */
export function findExecutable(name: string, pathVariable: string | undefined): string | undefined {
  for (const dir of (pathVariable ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

function readSysctl(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Why bwrap could not make its namespaces, in the user's terms: Ubuntu 23.10+ (and GitHub's
 * ubuntu-latest) restrict unprivileged user namespaces through AppArmor; Debian and others have a
 * sysctl; containers may forbid them outright.
 */
export function explainRefusal(stderr: string, sysctl: (path: string) => string | undefined = readSysctl) {
  const said = stderr.trim().split('\n').at(-1) ?? 'no output';
  if (sysctl('/proc/sys/kernel/apparmor_restrict_unprivileged_userns') === '1') {
    return {
      problem: `bubblewrap could not create its namespaces (${said}): AppArmor restricts unprivileged user namespaces on this host`,
      fix: "install Ubuntu's AppArmor profile for bwrap (sudo apt-get install apparmor-profiles && sudo ln -s /usr/share/apparmor/extra-profiles/bwrap-userns-restrict /etc/apparmor.d/ && sudo apparmor_parser -r /etc/apparmor.d/bwrap-userns-restrict), or allow them: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
    };
  }
  if (sysctl('/proc/sys/kernel/unprivileged_userns_clone') === '0') {
    return {
      problem: `bubblewrap could not create its namespaces (${said}): unprivileged user namespaces are disabled`,
      fix: 'sudo sysctl -w kernel.unprivileged_userns_clone=1',
    };
  }
  if (sysctl('/proc/sys/user/max_user_namespaces') === '0') {
    return {
      problem: `bubblewrap could not create its namespaces (${said}): user.max_user_namespaces is 0`,
      fix: 'sudo sysctl -w user.max_user_namespaces=15000',
    };
  }
  return {
    problem: `bubblewrap could not start a sandbox: ${said}`,
    fix: 'run issueloop where unprivileged user namespaces are allowed (in a container: --security-opt seccomp=unconfined, or a privileged runner), or set sandbox.mode: none to run the agent unsandboxed',
  };
}

function run(sandbox: CommandSandbox, argv: string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number; stderr: string }>((resolve) => {
    let stderr = '';
    const child = spawnSandboxed(sandbox, argv, { cwd, env, stdin: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.stdout?.resume();
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (err) => {
      stderr += err.message;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stderr });
    });
  });
}

/**
 * Starts a real sandbox once, with the same mounts and namespaces a session's commands get, and
 * checks from inside that it is one: its own PID namespace, a read-only system, a writable worktree.
 */
export async function probeSandbox(env: Readonly<Record<string, string | undefined>>): Promise<ProbeResult> {
  if (process.platform !== 'linux') {
    return {
      ok: false,
      problem: `sandbox.mode: os runs the agent's commands under bubblewrap, which needs Linux (this is ${process.platform})`,
      fix: 'run issueloop on Linux, or set sandbox.mode: none to run the agent unsandboxed',
    };
  }
  const bwrap = findExecutable('bwrap', env.PATH);
  if (bwrap === undefined) {
    return { ok: false, problem: 'bubblewrap (bwrap) is not installed or not on PATH', fix: INSTALL_BWRAP };
  }
  const nsenter = findExecutable('nsenter', `${env.PATH ?? ''}${delimiter}${SYSTEM_PATH}`);
  if (nsenter === undefined) {
    return { ok: false, problem: "util-linux's nsenter is not installed", fix: INSTALL_NSENTER };
  }
  const facts: HostFacts = { bwrap, nsenter, path: env.PATH, home: env.HOME };
  const dir = mkdtempSync(join(tmpdir(), 'issueloop-probe-'));
  try {
    const sandbox = createBwrapSandbox({ writable: [dir] }, facts);
    const check =
      'test ! -e /proc/$PPID/environ -o "$PPID" -le 1 && grep -q "^CapEff:[[:space:]]*0*$" /proc/self/status && echo ok > probe && ! touch /etc/.issueloop-probe';
    const result = await run(sandbox, ['bash', '-c', check], dir, { PATH: env.PATH ?? '/usr/bin:/bin' });
    if (result.code !== 0 || readFileSync(join(dir, 'probe'), 'utf8').trim() !== 'ok')
      return { ok: false, ...explainRefusal(result.stderr) };
    const joined = await probeSessionNetwork(facts, dir, env);
    return joined === undefined ? { ok: true, facts } : { ok: false, ...joined };
  } catch (err) {
    return { ok: false, ...explainRefusal(err instanceof Error ? err.message : String(err)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The path every session's commands take: a network holder started, a sandbox joining its namespace
 * with nsenter, and from inside, a namespace that is not the host's in which 127.0.0.1:PROXY_PORT
 * reaches a socket on the host. Undefined when all of that works.
 */
export async function probeSessionNetwork(
  facts: HostFacts,
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ problem: string; fix: string } | undefined> {
  let heard = '';
  const server = createServer((socket) => {
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      heard += chunk;
    });
  });
  const socket = join(dir, 'egress.sock');
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  const fix = `install util-linux's nsenter (${INSTALL_NSENTER}) and allow unprivileged user namespaces, or set sandbox.mode: none`;
  try {
    const holder = await startNetHolder({ ...facts, ports: [{ port: PROXY_PORT, socket }] });
    try {
      const sandbox = createBwrapSandbox({ writable: [dir], net: holder }, facts);
      const check = `readlink /proc/self/ns/net > netns && echo probe > /dev/tcp/127.0.0.1/${PROXY_PORT}`;
      const result = await run(sandbox, ['bash', '-c', check], dir, { PATH: env.PATH ?? '/usr/bin:/bin' });
      // The bridge may still be passing the bytes on when the command has ended.
      for (let waited = 0; !heard.includes('probe') && result.code === 0 && waited < 2_000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      const inside = result.code === 0 ? readFileSync(join(dir, 'netns'), 'utf8').trim() : '';
      const ok = inside !== '' && inside !== readlinkSync('/proc/self/ns/net') && heard.includes('probe');
      if (ok) return undefined;
      const said = result.stderr.trim().split('\n').at(-1) ?? '';
      return {
        problem: `a sandbox could not join its session's network namespace (${said || 'no output'})`,
        fix,
      };
    } finally {
      await holder.close();
    }
  } catch (err) {
    return { problem: `the session's network holder did not start: ${(err as Error).message}`, fix };
  } finally {
    server.close();
  }
}
