import { readFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError, type ConfigProblem } from '../core/errors.js';
import {
  ambientLayer,
  envLayer,
  flagsLayer,
  ghRepoLayer,
  isPlainObject,
  type Layer,
  type SourcedLayer,
  setFlagsLayer,
} from './overrides.js';
import { type Config, ConfigSchema } from './schema.js';
import { zodProblems } from './zod-problems.js';

export const CONFIG_FILE_NAMES = [
  'issueloop.config.yaml',
  'issueloop.config.yml',
  'issueloop.config.json',
] as const;

export interface LoadConfigOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** `--config`; otherwise `ISSUELOOP_CONFIG`; otherwise the first of CONFIG_FILE_NAMES in `cwd`. */
  configPath?: string;
  /** Repeated `--set path=value`. */
  sets?: readonly string[];
  /** Typed flags by config path, e.g. `{ repo: { value: 'a/b', flag: '--repo' } }`. */
  flags?: Readonly<Record<string, { value: unknown; flag: string } | undefined>>;
}

export interface LoadedConfig {
  config: Config;
  /** The file read, if any (absolute path). */
  file?: string;
  /** Where `repo` came from ("--repo", "env GH_REPO", the file's name…), when it is set. */
  repoSource?: string;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError([{ path: '', message: `cannot read ${path}: ${(err as Error).message}` }], {
      cause: err,
    });
  }
}

async function locateFile(options: LoadConfigOptions): Promise<{ path: string; text: string } | undefined> {
  const explicit = options.configPath ?? options.env.ISSUELOOP_CONFIG;
  if (explicit !== undefined) {
    const path = resolve(options.cwd, explicit);
    const text = await readIfExists(path);
    if (text === undefined) {
      const via = options.configPath !== undefined ? '--config' : 'ISSUELOOP_CONFIG';
      throw new ConfigError([{ path: '', message: `config file not found: ${path} (given by ${via})` }]);
    }
    return { path, text };
  }
  const found: Array<{ path: string; text: string }> = [];
  for (const name of CONFIG_FILE_NAMES) {
    const path = resolve(options.cwd, name);
    const text = await readIfExists(path);
    if (text !== undefined) found.push({ path, text });
  }
  if (found.length > 1) {
    const names = found.map((f) => basename(f.path)).join(' and ');
    throw new ConfigError([
      { path: '', message: `found ${names}: keep one of them, or choose with --config` },
    ]);
  }
  return found[0];
}

/** Parses a config file's text; YAML unless the name ends in .json. Errors carry line and column. */
export function parseConfigText(text: string, file: string): Layer {
  const name = basename(file);
  let data: unknown;
  if (extname(file) === '.json') {
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new ConfigError([{ path: '', message: `invalid JSON: ${(err as Error).message}`, source: name }]);
    }
  } else {
    // `merge` lets a file share settings through YAML anchors and `<<:` merge keys.
    const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, merge: true });
    const first = doc.errors[0];
    if (first) {
      const position = first.linePos?.[0];
      const where = position ? ` at line ${position.line}, column ${position.col}` : '';
      // The yaml package repeats the position at the end of its message ("… at line 3, column 1:").
      const reason = (first.message.split('\n')[0] ?? first.message).replace(
        / at line \d+, column \d+:?\s*$/,
        '',
      );
      throw new ConfigError([{ path: '', message: `invalid YAML${where}: ${reason}`, source: name }]);
    }
    try {
      data = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      // An alias bomb: "Excessive alias count indicates a resource exhaustion attack".
      const message = `invalid YAML: ${(err as Error).message}`;
      throw new ConfigError([{ path: '', message, source: name }], { cause: err });
    }
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    const got = Array.isArray(data) ? 'a list' : JSON.stringify(data);
    throw new ConfigError([
      { path: '', message: `expected a mapping of settings, got ${got}`, source: name },
    ]);
  }
  return data as Layer;
}

/**
 * Objects merge key by key; lists and scalars of the later layer replace the earlier one. Keys are
 * defined as own properties, so a file's `__proto__:` stays a (rejected) key instead of becoming the
 * object's prototype and smuggling settings past validation.
 */
export function mergeLayers(...layers: Layer[]): Layer {
  const out: Layer = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      const existing = Object.hasOwn(out, key) ? out[key] : undefined;
      const merged = isPlainObject(existing) && isPlainObject(value) ? mergeLayers(existing, value) : value;
      Object.defineProperty(out, key, {
        value: merged,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return out;
}

/** `model.fallbacks[1]` → `model.fallbacks[1]`, `model.fallbacks`, `model`. */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let p = path; p !== ''; p = p.replace(/(?:\.[^.[\]]+|\[\d+\]|^[^.[\]]+)$/, '')) out.push(p);
  return out;
}

/** Where the value at `path` came from: the most specific override, else the file, else the environment. */
function sourceFinder(
  overrides: readonly SourcedLayer[],
  file: { name: string; data: Layer } | undefined,
  ambient: SourcedLayer,
): (path: string) => string | undefined {
  return (path) => {
    for (const layer of overrides) {
      for (const p of ancestors(path)) {
        const source = layer.sources.get(p);
        if (source) return source;
      }
      for (const [key, source] of layer.sources) if (key.startsWith(`${path}.`)) return source;
    }
    const top = path.split(/[.[]/)[0] ?? path;
    if (file && Object.hasOwn(file.data, top)) return file.name;
    return ambient.sources.get(top) ?? file?.name;
  };
}

/**
 * Loads the configuration: defaults < what the environment implies (GITHUB_REPOSITORY) < file <
 * GH_REPO < ISSUELOOP_* variables < flags. Every problem, from every layer, is reported at once in one
 * ConfigError (exit code 2 at the entrypoint).
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const located = await locateFile(options);
  const fileLayer = located ? parseConfigText(located.text, located.path) : {};
  const ambient = ambientLayer(options.env);
  const ghRepo = ghRepoLayer(options.env);
  const env = envLayer(options.env);
  const sets = setFlagsLayer(options.sets ?? []);
  const flags = flagsLayer(options.flags ?? {});
  const merged = mergeLayers(ambient.data, fileLayer, ghRepo.data, env.data, sets.data, flags.data);

  const problems: ConfigProblem[] = [...env.problems, ...sets.problems, ...flags.problems];
  const result = ConfigSchema.safeParse(merged, { reportInput: true });
  const file = located ? { name: basename(located.path), data: fileLayer } : undefined;
  const findSource = sourceFinder([flags, sets, env, ghRepo], file, ambient);
  if (!result.success) problems.push(...zodProblems(result.error.issues, findSource));
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  const repoSource = result.data.repo === undefined ? undefined : findSource('repo');
  return {
    config: result.data,
    ...(located ? { file: located.path } : {}),
    ...(repoSource ? { repoSource } : {}),
  };
}
