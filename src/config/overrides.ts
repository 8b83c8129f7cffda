import { parse as parseYaml } from 'yaml';
import type { ConfigProblem } from '../core/errors.js';
import { ConfigSchema } from './schema.js';
import { keysAt, kindAt, leafPaths, suggest, type ValueKind } from './schema-keys.js';

/**
 * Environment and `--set` overrides, turned into partial config objects ("layers") plus a record of
 * where each value came from, so a validation message can name the variable or flag to fix.
 */

export type Layer = Record<string, unknown>;

export interface SourcedLayer {
  data: Layer;
  /** Config path → where its value came from ("env ISSUELOOP_WORKERS", "--set workers=4"). */
  sources: Map<string, string>;
  problems: ConfigProblem[];
}

export const ENV_PREFIX = 'ISSUELOOP_';
/**
 * Variables with the prefix that are not settings: the config file's path, and credentials, which
 * are read as credentials by the entrypoints and never become (printable) settings.
 */
export const ENV_CREDENTIALS: readonly string[] = Object.freeze([
  'ISSUELOOP_PROJECTS_TOKEN',
  'ISSUELOOP_APP_PRIVATE_KEY',
]);
const ENV_NOT_SETTINGS = new Set(['ISSUELOOP_CONFIG', ...ENV_CREDENTIALS]);
/** Short names for settings that people set beside a credential (the App's id next to its key). */
const ENV_ALIASES: Readonly<Record<string, readonly string[]>> = {
  ISSUELOOP_APP_ID: ['github', 'app', 'id'],
  ISSUELOOP_APP_INSTALLATION_ID: ['github', 'app', 'installation_id'],
};

function emptyLayer(): SourcedLayer {
  return { data: {}, sources: new Map(), problems: [] };
}

function parseFlow(text: string): unknown {
  try {
    return parseYaml(text);
  } catch {
    return text; // left as text: validation then says what was expected
  }
}

/**
 * Turns text (an environment variable, a `--set`) into the kind of value the setting takes, so that
 * `ISSUELOOP_LABEL=2024` stays a label and `--set verify.command='[ -f x ]'` stays a command.
 * Lists take `[a, b]` or `a,b`; maps take `{k: v}`. A value that does not fit is passed through as
 * text and validation reports it against the field.
 */
export function parseValue(text: string, kind: ValueKind): unknown {
  const trimmed = text.trim();
  switch (kind) {
    case 'string':
      return text;
    case 'number':
      // Exponents too, so `--set run_max_usd=1e308` is refused as too large, not as not a number.
      return /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(trimmed) ? Number(trimmed) : text;
    case 'boolean':
      return trimmed === 'true' ? true : trimmed === 'false' ? false : text;
    case 'array':
      if (trimmed.startsWith('[')) return parseFlow(trimmed);
      return trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim());
    case 'object':
      return trimmed.startsWith('{') ? parseFlow(trimmed) : text;
  }
}

export function isPlainObject(value: unknown): value is Layer {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function setPath(target: Layer, path: readonly string[], value: unknown): void {
  let node: Layer = target;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (isPlainObject(next)) {
      node = next;
    } else {
      const created: Layer = {};
      node[key] = created;
      node = created;
    }
  });
}

/** Whether `path` names a setting; otherwise the closest known spelling. */
function checkPath(path: readonly string[]): { ok: true } | { ok: false; suggestion?: string } {
  for (let i = 0; i < path.length; i++) {
    const known = keysAt(ConfigSchema, path.slice(0, i));
    const key = path[i] as string;
    if (known === undefined) return { ok: true }; // inside a free-form map (model.prices)
    if (!known.includes(key)) {
      const near = suggest(key, known);
      return near ? { ok: false, suggestion: [...path.slice(0, i), near].join('.') } : { ok: false };
    }
  }
  return { ok: true };
}

function envName(path: readonly string[]): string {
  return ENV_PREFIX + path.join('__').toUpperCase();
}

let knownEnvNames: string[] | undefined;
function allEnvNames(): string[] {
  knownEnvNames ??= leafPaths(ConfigSchema).map(envName);
  return knownEnvNames;
}

/**
 * `ISSUELOOP_WORKERS=4`, `ISSUELOOP_CLAIMS__TTL=45m` (double underscore between sections). An empty
 * variable counts as unset: that is what GitHub Actions passes for an input nobody filled in.
 */
export function envLayer(env: Readonly<Record<string, string | undefined>>): SourcedLayer {
  const layer = emptyLayer();
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || value === undefined || value === '' || ENV_NOT_SETTINGS.has(name))
      continue;
    const path = [...(ENV_ALIASES[name] ?? name.slice(ENV_PREFIX.length).toLowerCase().split('__'))];
    const source = `env ${name}`;
    if (!checkPath(path).ok) {
      const near = suggest(name, allEnvNames());
      const hint = near
        ? `did you mean ${near}?`
        : `settings are ${ENV_PREFIX}<SECTION>__<KEY>, see the README`;
      layer.problems.push({ path: path.join('.'), message: `unknown setting (${hint})`, source });
      continue;
    }
    setPath(layer.data, path, parseValue(value, kindAt(ConfigSchema, path)));
    layer.sources.set(path.join('.'), source);
  }
  return layer;
}

/** What the environment implies without naming a setting: it sits below the config file. */
export function ambientLayer(env: Readonly<Record<string, string | undefined>>): SourcedLayer {
  const layer = emptyLayer();
  // GitHub Actions names the repository the workflow runs for.
  if (env.GITHUB_REPOSITORY) {
    layer.data.repo = env.GITHUB_REPOSITORY;
    layer.sources.set('repo', 'env GITHUB_REPOSITORY');
  }
  return layer;
}

/**
 * gh's `GH_REPO` (`owner/name`, or `host/owner/name` as gh also takes it): chosen by the user like
 * ISSUELOOP_REPO, so above the config file, but below ISSUELOOP_REPO, which names issueloop alone.
 */
export function ghRepoLayer(env: Readonly<Record<string, string | undefined>>): SourcedLayer {
  const layer = emptyLayer();
  const value = env.GH_REPO?.trim();
  if (!value) return layer;
  const parts = value.split('/');
  // The host is the API's to say (GITHUB_API_URL); gh's own default host is dropped.
  layer.data.repo = parts.length === 3 && parts[0] === 'github.com' ? parts.slice(1).join('/') : value;
  layer.sources.set('repo', 'env GH_REPO');
  return layer;
}

/** Repeated `--set path=value` flags. */
export function setFlagsLayer(assignments: readonly string[]): SourcedLayer {
  const layer = emptyLayer();
  for (const assignment of assignments) {
    const eq = assignment.indexOf('=');
    const source = `--set ${assignment}`;
    if (eq <= 0) {
      layer.problems.push({
        path: '',
        message: 'expected --set path=value, e.g. --set claims.ttl=45m',
        source,
      });
      continue;
    }
    const path = assignment.slice(0, eq).trim().split('.');
    const check = checkPath(path);
    if (!check.ok) {
      const hint = check.suggestion ? ` (did you mean ${check.suggestion}?)` : '';
      layer.problems.push({ path: path.join('.'), message: `unknown setting${hint}`, source });
      continue;
    }
    setPath(layer.data, path, parseValue(assignment.slice(eq + 1), kindAt(ConfigSchema, path)));
    layer.sources.set(path.join('.'), source);
  }
  return layer;
}

/** Typed flags such as `--repo` that map straight onto a config path. */
export function flagsLayer(
  flags: Readonly<Record<string, { value: unknown; flag: string } | undefined>>,
): SourcedLayer {
  const layer = emptyLayer();
  for (const [path, entry] of Object.entries(flags)) {
    if (entry === undefined || entry.value === undefined) continue;
    setPath(layer.data, path.split('.'), entry.value);
    layer.sources.set(path, entry.flag);
  }
  return layer;
}
