import {
  copyFile,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rmdir,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { installationOf } from '../../sandbox/host-paths.js';
import { findExecutable } from '../../sandbox/probe.js';
import type { ClaudeScope } from '../../sandbox/sandbox-host.js';
import { configCopy } from './config-copy.js';
import { claudeProjectDir } from './session-history.js';

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

/** Where Claude Code keeps its configuration and session files: CLAUDE_CONFIG_DIR, else ~/.claude. */
export function claudeConfigDir(env: Readonly<Record<string, string | undefined>>): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME ?? homedir(), '.claude');
}

/** Claude Code's home in the sandbox, and the scratch directory to remove after the session. */
export interface ClaudeHome extends ClaudeScope {
  scratch: string;
  /** The worktree's directory in the real `projects/`, the only one shown: its name, its path. */
  project?: { name: string; path: string };
}

/** Copies `from` to `to` as configCopy allows; false when it was left out. */
async function copyConfig(from: string, to: string, name: string, secrets: readonly string[]) {
  const copy = configCopy(name, await readFile(from, 'utf8'), secrets);
  if (copy !== undefined) await writeFile(to, copy, { mode: 0o600 });
  return copy !== undefined;
}

/**
 * What the `claude` process sees of the home in its sandbox. Its configuration (`~/.claude` or
 * CLAUDE_CONFIG_DIR, and `~/.claude.json`) is a throwaway copy of the top-level files: a settings
 * hook or an MCP server the agent writes there would otherwise run, unsandboxed, the next time you
 * start `claude` (found by the security review). The copy holds no credential (config-copy.ts: no
 * login file, no key, token or key helper in the settings, no file holding one of `secrets`), since
 * the session's model proxy holds it. `projects/` is the copy's too, but for one directory: the
 * worktree's (`cwd`), where the CLI keeps this worktree's sessions (resumed by the next task of a
 * group, read by the seeded fallback), which is the real one, writable. The transcripts of your other
 * projects are not in sight: readable, they would be the agent's to send on; writable, the next
 * `claude --continue` you run there would resume a history the agent wrote. Without `cwd`, no
 * session persists. Also its own installation when it is not on PATH.
 */
export async function claudeScope(
  bin: string,
  env: Readonly<Record<string, string | undefined>>,
  /** The credentials' values: a file that still holds one is not copied. */
  secrets: readonly string[] = [],
  /** The worktree `claude` runs in: its project directory is the one that persists. */
  cwd?: string,
): Promise<ClaudeHome> {
  const home = env.HOME ?? homedir();
  const configDir = claudeConfigDir(env);
  await mkdir(configDir, { recursive: true });
  const scratch = await mkdtemp(join(tmpdir(), 'issueloop-claude-'));
  const config = join(scratch, 'config');
  await mkdir(config);
  for (const entry of await readdir(configDir, { withFileTypes: true })) {
    // Regular files only: no directory (history, todos, other projects) and no symlink out.
    if (entry.isFile())
      await copyConfig(join(configDir, entry.name), join(config, entry.name), entry.name, secrets);
  }
  const homeBinds = [{ source: config, dest: configDir }];
  await mkdir(join(config, 'projects'), { recursive: true });
  const project = cwd ? await projectDir(configDir, cwd) : undefined;
  if (project) {
    // The mount point in the copy; the bind shows the real directory there.
    await mkdir(join(config, 'projects', project.name), { recursive: true });
    homeBinds.push({ source: project.path, dest: join(configDir, 'projects', project.name) });
  }
  const settings = join(home, '.claude.json');
  const copied = join(scratch, 'claude.json');
  if ((await isFile(settings)) && (await copyConfig(settings, copied, '.claude.json', secrets))) {
    homeBinds.push({ source: copied, dest: settings });
  }
  const program = bin.includes('/') ? resolve(bin) : findExecutable(bin, env.PATH);
  const real = program && isAbsolute(program) ? await realpath(program).catch(() => undefined) : undefined;
  return {
    home,
    homeBinds,
    readOnly: real ? [installationOf(real)] : [],
    scratch,
    ...(project ? { project } : {}),
  };
}

/** The worktree's directory in the real `projects/`, made if missing; never a link out. */
async function projectDir(configDir: string, cwd: string): Promise<{ name: string; path: string }> {
  const name = claudeProjectDir(await realpath(cwd).catch(() => cwd));
  const path = join(configDir, 'projects', name);
  await mkdir(path, { recursive: true, mode: 0o700 });
  if (!(await lstat(path)).isDirectory()) throw new Error(`${path} is not a directory`);
  return { name, path };
}

/**
 * For a `claude` that runs unconfined (`sandbox.mode: none`), where no sandbox shows the copy at the
 * real path: the copy becomes its configuration directory (CLAUDE_CONFIG_DIR, which also moves
 * `.claude.json` there), with the worktree's real project directory linked in for the session
 * files (an unconfined `claude` could read the rest anyway: that mode is no boundary). Otherwise your
 * own settings would apply, and a settings `env` wins over the process's: an ANTHROPIC_BASE_URL or
 * key there would take `claude` past the model proxy.
 */
export async function unconfinedConfigDir(home: ClaudeHome): Promise<string> {
  const config = join(home.scratch, 'config');
  if (home.project) {
    const link = join(config, 'projects', home.project.name);
    await rmdir(link);
    await symlink(home.project.path, link);
  }
  const settings = join(home.scratch, 'claude.json');
  if (await isFile(settings)) await copyFile(settings, join(config, '.claude.json'));
  return config;
}
