import { closest, distance } from 'fastest-levenshtein';
import type { z } from 'zod';

/** Introspection of the config schema: which keys exist where, and what type a value must have. */

interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
}

function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { def: SchemaDef }).def;
}

/** Looks through optional/default/prefault/nullable/pipe wrappers to the schema that holds the shape. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let i = 0; i < 10; i++) {
    const def = defOf(current);
    const next = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!next) return current;
    current = next;
  }
  return current;
}

/** The (unwrapped) schema at `path`, or undefined when the path leads nowhere. */
export function schemaAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): z.ZodType | undefined {
  let current = unwrap(schema);
  for (const segment of path) {
    const def = defOf(current);
    let next: z.ZodType | undefined;
    if (
      def.type === 'object' &&
      def.shape &&
      typeof segment === 'string' &&
      Object.hasOwn(def.shape, segment)
    ) {
      next = def.shape[segment];
    } else if (def.type === 'array' && typeof segment === 'number') {
      next = def.element;
    } else if (def.type === 'record' && typeof segment === 'string') {
      next = def.valueType;
    }
    if (!next) return undefined;
    current = unwrap(next);
  }
  return current;
}

/** The keys an object accepts at `path`, or undefined when the path is not a fixed-shape object. */
export function keysAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] | undefined {
  const found = schemaAt(schema, path);
  const def = found ? defOf(found) : undefined;
  return def?.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}

export type ValueKind = 'string' | 'number' | 'boolean' | 'array' | 'object';

/**
 * What kind of value a setting takes (durations and enums are strings). Anything else is read as
 * text, which validation then reports against the field.
 */
export function kindAt(schema: z.ZodType, path: readonly string[]): ValueKind {
  const found = schemaAt(schema, path);
  switch (found ? defOf(found).type : undefined) {
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'array';
    case 'object':
    case 'record':
      return 'object';
    default:
      return 'string';
  }
}

/** Every settable path (objects are walked; lists, maps and scalars are leaves). */
export function leafPaths(schema: z.ZodType, prefix: readonly string[] = []): string[][] {
  const def = defOf(unwrap(schema));
  if (def.type !== 'object' || !def.shape) return [[...prefix]];
  return Object.entries(def.shape).flatMap(([key, child]) => leafPaths(child, [...prefix, key]));
}

/** The closest known name when it is close enough to be a typo. */
export function suggest(name: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const best = closest(name, [...known]);
  const limit = Math.max(2, Math.floor(name.length / 4));
  return distance(name, best) <= limit ? best : undefined;
}
