import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { basename, delimiter, dirname, join } from 'node:path';
import type { Check } from './doctor-report.js';

/**
 * Whether `issueloop` can be run by its name. npm puts a global install's command in
 * `$(npm prefix -g)/bin`, and when Node itself came from npm's `node@24` package that directory is
 * inside the package, on no one's PATH: the install succeeds and the shell then says "command not
 * found". Doctor, run by its full path, prints the exact line that fixes it.
 */

/** The directory a global install put the `issueloop` command in, from the path it was run by. */
export function binDirOf(binPath: string): string | undefined {
  if (basename(binPath) === 'issueloop') return dirname(binPath);
  // Run as `node <prefix>/lib/node_modules/issueloop/dist/bin/issueloop.js` (or the module-by-module
  // dist/cli/main.js): npm's global layout.
  const global =
    /^(.*)[/\\]lib[/\\]node_modules[/\\]issueloop[/\\]dist[/\\](?:bin[/\\]issueloop|cli[/\\]main)\.js$/.exec(
      binPath,
    );
  return global?.[1] === undefined ? undefined : join(global[1], 'bin');
}

/** The first `issueloop` on PATH that can be executed. */
async function onPath(path: string | undefined): Promise<string | undefined> {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'issueloop');
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/** The line to add to a shell's profile; `$PATH` stays for the shell to expand. */
export function pathLine(dir: string): string {
  return `export PATH="${dir}:$PATH"`;
}

/**
 * A check only for an installed issueloop (`binPath`, the entrypoint's argv[1], is its command or
 * lies in npm's global layout): whether its name is found on PATH, else the line that puts it there.
 */
export async function checkOnPath(
  binPath: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Check | undefined> {
  // Not installed (`node dist/cli/main.js` in a clone): nothing was meant to be on PATH.
  const dir = binPath === undefined ? undefined : binDirOf(binPath);
  if (dir === undefined) return undefined;
  const found = await onPath(env.PATH);
  if (found) return { name: 'on PATH', status: 'ok', detail: `issueloop is ${found}` };
  return {
    name: 'on PATH',
    status: 'warn',
    detail: `issueloop is not on PATH: add \`${pathLine(dir)}\``,
    fix: `add \`${pathLine(dir)}\` to your shell's profile (~/.bashrc, ~/.zshrc), then open a new shell`,
  };
}
