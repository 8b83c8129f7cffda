import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One import of one file: the file it names (repository-relative) and whether only types cross. */
export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every `.ts` file under `dir`, repository-relative with forward slashes. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(relative(root, path));
    }
  };
  walk(join(root, dir));
  return out.sort();
}

/**
 * The relative imports of a file's text: static imports and re-exports (`import type` and
 * `export type` marked type-only) and dynamic `import()`. Package imports are left out.
 */
export function importsOf(file: string, text: string, exists: (path: string) => boolean): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[3] ?? match[4];
    if (!specifier?.startsWith('.')) continue;
    const target = join(dirname(file), specifier).replace(/\.js$/, '.ts');
    if (!exists(target)) throw new Error(`${file}: cannot resolve ${specifier}`);
    edges.push({ from: file, to: target, typeOnly: match[2] !== undefined });
  }
  return edges;
}

export function importGraph(root: string, dir: string): ImportEdge[] {
  return sourceFiles(root, dir).flatMap((file) =>
    importsOf(file, readFileSync(join(root, file), 'utf8'), (path) => existsSync(resolve(root, path))),
  );
}

/** Every cycle's files (strongly connected components of more than one file, or a self-import). */
export function cycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (;;) {
      const top = stack.pop() as string;
      onStack.delete(top);
      component.push(top);
      if (top === node) break;
    }
    if (component.length > 1 || (next.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of [...new Set(edges.flatMap((edge) => [edge.from, edge.to]))].sort())
    if (!index.has(node)) visit(node);
  return found;
}

/** `src/<folder>/…` → `<folder>`; a file directly under src/ is its own folder. */
export function folderOf(path: string): string {
  const [, folder = ''] = path.split('/');
  return folder.replace(/\.ts$/, '');
}
