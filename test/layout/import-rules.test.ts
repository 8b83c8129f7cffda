import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { NEEDS_HUMAN_LABEL } from '../../src/github/labels.js';
import {
  cycles,
  folderOf,
  type ImportEdge,
  importGraph,
  importsOf,
  sourceFiles,
} from '../helpers/import-graph.js';

const ROOT = join(import.meta.dirname, '../..');
const edges = importGraph(ROOT, 'src');
const crossing = edges.filter((edge) => folderOf(edge.from) !== folderOf(edge.to));

/**
 * What each folder of src/ may import, besides itself (ARCHITECTURE.md draws the same layers). A
 * folder imports only folders below it; the OS sandbox (sandbox/) and the emulators (emulators/) stand
 * on core/ alone.
 */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  core: [],
  config: ['core'],
  model: ['core'],
  claims: ['core', 'config'],
  github: ['core', 'config'],
  sandbox: ['core'],
  agent: ['core', 'config', 'model', 'sandbox'],
  engines: ['core', 'config', 'model', 'sandbox', 'agent'],
  session: ['core', 'config', 'model', 'sandbox', 'agent', 'engines'],
  scheduler: ['core', 'config', 'model', 'claims', 'sandbox', 'agent', 'session'],
  sources: [
    'core',
    'config',
    'model',
    'claims',
    'github',
    'sandbox',
    'agent',
    'engines',
    'session',
    'scheduler',
  ],
  run: [
    ...['core', 'config', 'model', 'claims', 'github', 'sandbox', 'agent', 'engines', 'session', 'scheduler'],
    'sources',
  ],
  cli: [
    ...['core', 'config', 'model', 'claims', 'github', 'sandbox', 'agent', 'engines', 'session', 'scheduler'],
    ...['sources', 'run', 'emulators'],
  ],
  action: [
    ...['core', 'config', 'model', 'claims', 'github', 'sandbox', 'agent', 'session', 'scheduler', 'sources'],
    'run',
  ],
  emulators: ['core'],
};

const ENTRYPOINTS = ['src/cli/main.ts', 'src/action/main.ts'];

function describeEdges(list: readonly ImportEdge[]): string[] {
  return list.map((edge) => `${edge.from} -> ${edge.to}`);
}

describe('the layout of src/ (ARCHITECTURE.md)', () => {
  it('reads every relative import of every source file', () => {
    expect(sourceFiles(ROOT, 'src').length).toBeGreaterThan(200);
    expect(edges.length).toBeGreaterThan(800);
  });

  it('has no import cycle, type-only imports included', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('has every folder import only the folders below it', () => {
    expect(Object.keys(MAY_IMPORT).sort()).toEqual(
      [...new Set(sourceFiles(ROOT, 'src').map(folderOf))].sort(),
    );
    const wrong = crossing.filter((edge) => !MAY_IMPORT[folderOf(edge.from)]?.includes(folderOf(edge.to)));
    expect(describeEdges(wrong)).toEqual([]);
  });

  it('keeps the two entrypoints apart: cli/ and action/ never import each other', () => {
    const between = crossing.filter(
      (edge) =>
        ['cli', 'action'].includes(folderOf(edge.from)) && ['cli', 'action'].includes(folderOf(edge.to)),
    );
    expect(describeEdges(between)).toEqual([]);
  });

  it('has nothing import an entrypoint', () => {
    expect(describeEdges(edges.filter((edge) => ENTRYPOINTS.includes(edge.to)))).toEqual([]);
  });

  it('has the emulators and the OS sandbox import core/ only', () => {
    const below = crossing.filter((edge) => ['emulators', 'sandbox'].includes(folderOf(edge.from)));
    expect(describeEdges(below.filter((edge) => folderOf(edge.to) !== 'core'))).toEqual([]);
  });

  it('keeps the emulators out of the product: only the demo (cli/) imports them', () => {
    const users = crossing.filter(
      (edge) => folderOf(edge.to) === 'emulators' && folderOf(edge.from) !== 'cli',
    );
    expect(describeEdges(users)).toEqual([]);
  });

  it('has no source file over 300 lines', () => {
    const long = sourceFiles(ROOT, 'src')
      .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').trimEnd().split('\n').length }))
      .filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });

  it('has the work sources one folder each under sources/, and the seams where the scheduler and session keep them', () => {
    const sources = new Set(sourceFiles(ROOT, 'src/sources').map((file) => file.split('/')[2]));
    expect([...sources].sort()).toEqual(['issues', 'tasks']);
    // A source's files import nothing of another source.
    const across = edges.filter(
      (edge) =>
        edge.from.startsWith('src/sources/') &&
        edge.to.startsWith('src/sources/') &&
        edge.from.split('/')[2] !== edge.to.split('/')[2],
    );
    expect(describeEdges(across)).toEqual([]);
  });

  it('defines the needs-human label once: the config default is the same name', () => {
    expect(ConfigSchema.parse({}).exclude_labels).toContain(NEEDS_HUMAN_LABEL);
  });
});

describe('the import graph reader', () => {
  const files = new Set(['src/a/x.ts', 'src/a/y.ts', 'src/b/z.ts', 'src/b/index.ts']);
  const exists = (path: string) => files.has(path);

  it('reads static, type-only, re-exported and dynamic imports, and leaves packages out', () => {
    const text = [
      "import { a } from './y.js';",
      "import type { T } from '../b/z.js';",
      "export { b } from '../b/index.js';",
      "import { readFile } from 'node:fs/promises';",
      "const later = await import('./y.js');",
      'import {',
      '  multi,',
      "} from '../b/z.js';",
    ].join('\n');
    expect(importsOf('src/a/x.ts', text, exists)).toEqual([
      { from: 'src/a/x.ts', to: 'src/a/y.ts', typeOnly: false },
      { from: 'src/a/x.ts', to: 'src/b/z.ts', typeOnly: true },
      { from: 'src/a/x.ts', to: 'src/b/index.ts', typeOnly: false },
      { from: 'src/a/x.ts', to: 'src/a/y.ts', typeOnly: false },
      { from: 'src/a/x.ts', to: 'src/b/z.ts', typeOnly: false },
    ]);
  });

  it('refuses an import it cannot resolve, rather than missing an edge', () => {
    expect(() => importsOf('src/a/x.ts', "import { gone } from './gone.js';", exists)).toThrow(
      /cannot resolve/,
    );
  });

  it('finds a cycle of three files and a self-import, and none in a tree', () => {
    const edge = (from: string, to: string): ImportEdge => ({ from, to, typeOnly: false });
    expect(cycles([edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('c', 'd'), edge('e', 'e')])).toEqual([
      ['a', 'b', 'c'],
      ['e'],
    ]);
    expect(cycles([edge('a', 'b'), edge('a', 'c'), edge('b', 'c')])).toEqual([]);
  });
});
