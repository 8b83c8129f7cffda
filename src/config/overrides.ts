import { parse as parseYaml } from 'yaml';
import type { ConfigProblem } from '../core/errors.js';
import { ConfigSchema } from './schema.js';
import { keysAt, suggest } from './schema-keys.js';

/**
 * Environment and `--set` overrides, turned into partial config objects ("layers") plus a record of
 * where each value came from, so a validation message can name the variable or flag to fix.
 */

export type Layer = Record<string, unknown>;

export interface SourcedLayer {
  data: Layer;
  /** Dotted config path → where its value came from ("env ISSUELOOP_WORKERS", "--set workers=4"). */
  sources: Map<string, string>;
  problems: ConfigProblem[];
}

export const ENV_PREFIX = 'ISSUELOOP_';
/** Variables with the prefix that are not settings. */
const ENV_NOT_SETTINGS = new Set(['ISSUELOOP_CONFIG']);

/**
 * A value given as text (an environment variable, a `--set`): numbers and true/false are typed,
 * `[a, b]` and `{k: v}` are parsed as YAML flow collections, anything else stays a string
 * ("fix: typo" must not turn into a mapping).
 */
export function parseScalar(text: string): unknown {
  const value = text.trim();
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value.startsWith('[') || value.startsWith('{')) {
    try {
      return parseYaml(value);
    } catch {
      return text;
    }
  }
  return text;
}

export function setPath(target: Layer, path: readonly string[], value: unknown): void {
  let node: Layer = target;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (typeof next === 'object' && next !== null && !Array.isArray(next)) {
      node = next as Layer;
    } else {
      const created: Layer = {};
      node[key] = created;
      node = created;
    }
  });
}

/** Whether `path` names a setting; otherwise the closest known spelling of its last segment. */
function checkPath(path: readonly string[]): { ok: true } | { ok: false; suggestion?: string } {
  for (let i = 0; i < path.length; i++) {
    const known = keysAt(ConfigSchema, path.slice(0, i));
    const key = path[i] as string;
    if (known === undefined) return { ok: true }; // inside a free-form record (model.prices)
    if (!known.includes(key)) {
      const near = suggest(key, known);
      return near ? { ok: false, suggestion: [...path.slice(0, i), near].join('.') } : { ok: false };
    }
  }
  return { ok: true };
}

function envName(path: string): string {
  return ENV_PREFIX + path.split('.').join('__').toUpperCase();
}

/** `ISSUELOOP_WORKERS=4`, `ISSUELOOP_CLAIMS__TTL=45m` (double underscore between sections). */
export function envLayer(env: Readonly<Record<string, string | undefined>>): SourcedLayer {
  const layer: SourcedLayer = { data: {}, sources: new Map(), problems: [] };
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || value === undefined || ENV_NOT_SETTINGS.has(name)) continue;
    const path = name.slice(ENV_PREFIX.length).toLowerCase().split('__');
    const check = checkPath(path);
    if (!check.ok) {
      const hint = check.suggestion ? ` (did you mean ${envName(check.suggestion)}?)` : '';
      layer.problems.push({ path: path.join('.'), message: `unknown setting${hint}`, source: `env ${name}` });
      continue;
    }
    setPath(layer.data, path, parseScalar(value));
    layer.sources.set(path.join('.'), `env ${name}`);
  }
  // GitHub Actions names the repository it runs for; an explicit setting wins.
  const actionsRepo = env.GITHUB_REPOSITORY;
  if (actionsRepo && env.ISSUELOOP_REPO === undefined) {
    layer.data.repo = actionsRepo;
    layer.sources.set('repo', 'env GITHUB_REPOSITORY');
  }
  return layer;
}

/** Repeated `--set path=value` flags. */
export function setFlagsLayer(assignments: readonly string[]): SourcedLayer {
  const layer: SourcedLayer = { data: {}, sources: new Map(), problems: [] };
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
    setPath(layer.data, path, parseScalar(assignment.slice(eq + 1)));
    layer.sources.set(path.join('.'), source);
  }
  return layer;
}

/** Typed flags such as `--repo` that map straight onto a config path. */
export function flagsLayer(
  flags: Readonly<Record<string, { value: unknown; flag: string } | undefined>>,
): SourcedLayer {
  const layer: SourcedLayer = { data: {}, sources: new Map(), problems: [] };
  for (const [path, entry] of Object.entries(flags)) {
    if (entry === undefined || entry.value === undefined) continue;
    setPath(layer.data, path.split('.'), entry.value);
    layer.sources.set(path, entry.flag);
  }
  return layer;
}
