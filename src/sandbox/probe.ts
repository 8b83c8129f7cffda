import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { type CommandSandbox, createBwrapSandbox, type HostFacts } from './sandbox.js';
import { spawnSandboxed } from './spawn-sandboxed.js';

export type ProbeResult = { ok: true; facts: HostFacts } | { ok: false; problem: string; fix: string };

export const INSTALL_BWRAP = 'sudo apt-get install bubblewrap   (Fedora: sudo dnf install bubblewrap)';

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
  const facts: HostFacts = { bwrap, path: env.PATH, home: env.HOME };
  const dir = mkdtempSync(join(tmpdir(), 'issueloop-probe-'));
  try {
    const sandbox = createBwrapSandbox({ writable: [dir], network: 'none' }, facts);
    const check =
      'test ! -e /proc/$PPID/environ -o "$PPID" -le 1 && grep -q "^CapEff:[[:space:]]*0*$" /proc/self/status && echo ok > probe && ! touch /etc/.issueloop-probe';
    const result = await run(sandbox, ['bash', '-c', check], dir, { PATH: env.PATH ?? '/usr/bin:/bin' });
    if (result.code === 0 && readFileSync(join(dir, 'probe'), 'utf8').trim() === 'ok')
      return { ok: true, facts };
    return { ok: false, ...explainRefusal(result.stderr) };
  } catch (err) {
    return { ok: false, ...explainRefusal(err instanceof Error ? err.message : String(err)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
