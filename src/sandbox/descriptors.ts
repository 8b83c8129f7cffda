import { closeSync, existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * Descriptors this process would pass to every program it starts: those above stderr without
 * close-on-exec. Node and libuv open everything close-on-exec, so these are what the process itself
 * inherited (a make jobserver's pipe, a socket a CI runner or systemd passed down: the red team saw a
 * job runner's fd 251), and bubblewrap and nsenter pass them on into the sandbox.
 */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  return names.map(Number).filter(inheritable);
}

function inheritable(fd: number): boolean {
  if (!(fd > 2)) return false;
  let info: string;
  try {
    // readdir's own descriptor is listed too, and gone by now.
    info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
  } catch {
    return false;
  }
  const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
  return flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0;
}

let known: number[] | undefined;

/**
 * `inheritableDescriptors()` for each sandboxed call, without reading every descriptor of a busy
 * harness each time: the first call scans, later ones check the ones found (a descriptor Node opens
 * is always close-on-exec, so no new one appears; one closed, or its number reused, drops out).
 */
export function passedOnDescriptors(): number[] {
  known = known === undefined ? inheritableDescriptors() : known.filter(inheritable);
  return known;
}

const O_CLOEXEC = 0o2000000;

/**
 * For an entrypoint: closes what the process inherited above stderr (but Node's IPC channel, when a
 * parent forked it with one), so that no child of the harness, sandboxed or not, gets it, and
 * sandboxed commands need no prelude (`closingPrelude`). Returns the descriptors closed.
 */
export function closeInheritedDescriptors(env: NodeJS.ProcessEnv = process.env): number[] {
  const channel = Number(env.NODE_CHANNEL_FD ?? Number.NaN);
  const closed = inheritableDescriptors().filter((fd) => fd !== channel);
  for (const fd of closed) closeSync(fd);
  known = undefined;
  return closed;
}

const BASH = ['/bin/bash', '/usr/bin/bash'].find((path) => existsSync(path));

/**
 * `argv` run by bash, inside the sandbox, after it closed every descriptor above stderr: needed only
 * while the harness holds inheritable ones (library use; the entrypoints close them at start), since
 * bubblewrap 0.8 has no option to close them and nsenter none either. `-p`: no BASH_ENV, no functions
 * from the environment. PWD, which bash adds, is taken back unless `env` had it; SHLVL=0 stays when
 * `env` had none (bash's `exec` sets it again after an unset; 0 is what a shell reads as none).
 */
export function closingPrelude(argv: readonly string[], env: Readonly<Record<string, string>>): string[] {
  if (BASH === undefined)
    throw new Error('the harness holds inherited descriptors and bash, which would close them, is missing');
  const unset = ['PWD'].filter((name) => env[name] === undefined);
  const script = [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own expansion
    'for f in /proc/self/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ]; then exec {n}>&-; fi; done',
    ...(unset.length > 0 ? [`unset ${unset.join(' ')}`] : []),
    'exec "$@"',
  ].join('; ');
  return [BASH, '-p', '-c', script, 'issueloop-sandbox', ...argv];
}
