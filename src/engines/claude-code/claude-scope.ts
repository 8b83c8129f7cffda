import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
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
 * the session's model proxy holds it. Only `projects/`, where the session files live
 * (resumed by the next task of a group, read by the seeded fallback), is the real one. Also its own
 * installation when it is not on PATH.
 */
export async function claudeScope(
  bin: string,
  env: Readonly<Record<string, string | undefined>>,
  /** The credentials' values: a file that still holds one is not copied. */
  secrets: readonly string[] = [],
): Promise<ClaudeHome> {
  const home = env.HOME ?? homedir();
  const configDir = claudeConfigDir(env);
  const projects = join(configDir, 'projects');
  await mkdir(projects, { recursive: true });
  const scratch = await mkdtemp(join(tmpdir(), 'issueloop-claude-'));
  const config = join(scratch, 'config');
  await mkdir(config);
  for (const entry of await readdir(configDir, { withFileTypes: true })) {
    // Regular files only: no directory (history, todos, other projects) and no symlink out.
    if (entry.isFile())
      await copyConfig(join(configDir, entry.name), join(config, entry.name), entry.name, secrets);
  }
  const homeBinds = [
    { source: config, dest: configDir },
    { source: projects, dest: projects },
  ];
  const settings = join(home, '.claude.json');
  const copied = join(scratch, 'claude.json');
  if ((await isFile(settings)) && (await copyConfig(settings, copied, '.claude.json', secrets))) {
    homeBinds.push({ source: copied, dest: settings });
  }
  const program = bin.includes('/') ? resolve(bin) : findExecutable(bin, env.PATH);
  const real = program && isAbsolute(program) ? await realpath(program).catch(() => undefined) : undefined;
  return { home, homeBinds, readOnly: real ? [installationOf(real)] : [], scratch };
}

/**
 * For a `claude` that runs unconfined (`sandbox.mode: none`), where no sandbox shows the copy at the
 * real path: the copy becomes its configuration directory (CLAUDE_CONFIG_DIR, which also moves
 * `.claude.json` there), with the real `projects/` linked in for the session files. Otherwise your
 * own settings would apply, and a settings `env` wins over the process's: an ANTHROPIC_BASE_URL or
 * key there would take `claude` past the model proxy.
 */
export async function unconfinedConfigDir(
  home: ClaudeHome,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  const config = join(home.scratch, 'config');
  await symlink(join(claudeConfigDir(env), 'projects'), join(config, 'projects'));
  const settings = join(home.scratch, 'claude.json');
  if (await isFile(settings)) await copyFile(settings, join(config, '.claude.json'));
  return config;
}
