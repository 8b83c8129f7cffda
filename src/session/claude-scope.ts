import { mkdir, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { installationOf } from '../agent/exec/host-paths.js';
import { findExecutable } from '../agent/exec/probe.js';
import type { ClaudeScope } from '../agent/exec/sandbox-host.js';

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * What the `claude` process sees of the home in its sandbox: `~/.claude` (or CLAUDE_CONFIG_DIR) and
 * `~/.claude.json`, where Claude Code keeps its login, settings and session files (the seeded
 * fallback reads them afterwards), and nothing else; and its own installation when it is not on PATH.
 */
export async function claudeScope(
  bin: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ClaudeScope> {
  const home = env.HOME ?? homedir();
  const configDir = env.CLAUDE_CONFIG_DIR ?? join(home, '.claude');
  await mkdir(configDir, { recursive: true });
  const homeBinds = [{ source: configDir, dest: configDir }];
  const settings = join(home, '.claude.json');
  if (await exists(settings)) homeBinds.push({ source: settings, dest: settings });
  const program = bin.includes('/') ? resolve(bin) : findExecutable(bin, env.PATH);
  const real = program && isAbsolute(program) ? await realpath(program).catch(() => undefined) : undefined;
  return { home, homeBinds, readOnly: real ? [installationOf(real)] : [] };
}
