import { closest, distance } from 'fastest-levenshtein';
import type { z } from 'zod';

interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
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

/**
 * The keys an object accepts at `path` inside `schema`, or undefined when the path does not lead to
 * a fixed-shape object (a record, a scalar, an unknown key).
 */
export function keysAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] | undefined {
  let current = unwrap(schema);
  for (const segment of path) {
    const def = defOf(current);
    if (def.type === 'object' && def.shape && typeof segment === 'string' && segment in def.shape) {
      const child = def.shape[segment];
      if (!child) return undefined;
      current = unwrap(child);
    } else if (def.type === 'array' && def.element && typeof segment === 'number') {
      current = unwrap(def.element);
    } else {
      return undefined;
    }
  }
  const def = defOf(current);
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}

/** The closest known key when it is close enough to be a typo. */
export function suggest(key: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const best = closest(key, [...known]);
  const limit = Math.max(2, Math.floor(key.length / 3));
  return distance(key, best) <= limit ? best : undefined;
}
