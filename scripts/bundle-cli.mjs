#!/usr/bin/env node
// Builds the executable, dist/bin/issueloop.js, from src/cli/main.ts with esbuild: its start-up path
// (commander, the command table, redaction) in a few files instead of some sixty modules, and each
// command's own code in chunks loaded when that command runs. `issueloop --help` is measured against
// `node -e 0` by bench/startup.mjs (target: 2x); loading the modules one by one cost about 10 ms.
//
// Chunks stay in dist/bin/, two levels below the package like dist/<layer>/<module>.js, so the paths
// the code reads relative to itself (../../prompts/, ../../package.json, ../../examples/) hold in
// both layouts. dist/ from tsc stays what tests and library use import.
//
//   node scripts/bundle-cli.mjs
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * commander imports node:child_process for executable subcommands (`program.command('x', 'desc')`
 * run as separate files), which issueloop never declares; loading it (with net, dgram, streams) costs
 * about 4 ms of every start. commander gets a stand-in that loads the module on its first spawn.
 */
const lazyChildProcess = {
  name: 'lazy-child-process-for-commander',
  setup(build) {
    build.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[/\\]node_modules[/\\]commander[/\\]/.test(args.importer)
        ? { path: 'lazy-child-process', namespace: 'issueloop' }
        : undefined,
    );
    build.onLoad({ filter: /^lazy-child-process$/, namespace: 'issueloop' }, () => ({
      contents: [
        "import { createRequire } from 'node:module';",
        "const load = () => createRequire(import.meta.url)('node:child_process');",
        'export default { spawn: (...args) => load().spawn(...args) };',
      ].join('\n'),
      loader: 'js',
    }));
  },
};
const outdir = join(root, 'dist', 'bin');
await rm(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { issueloop: 'src/cli/main.ts' },
  outdir,
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  logLevel: 'warning',
  // Left in node_modules: the OpenTelemetry SDK, loaded only when an OTLP endpoint is configured (a
  // test sees that --help loads none of it); and the CommonJS packages the code reaches by import()
  // only when needed (ioredis, pino-pretty): split into a chunk of their own, esbuild gives such a
  // module a default export alone, and `const { Redis } = await import('ioredis')` found nothing.
  external: ['@opentelemetry/*', 'ioredis', 'pino-pretty'],
  plugins: [lazyChildProcess],
  // Bundled CommonJS dependencies call require() for Node's own modules; ESM has none of its own.
  banner: {
    js: "import { createRequire as __issueloopCreateRequire } from 'node:module';\nconst require = __issueloopCreateRequire(import.meta.url);",
  },
});
