#!/usr/bin/env node
// Builds the GitHub Action's bundle, action/dist/index.mjs, from src/action/main.ts with esbuild:
// one file with every dependency inside, because a JavaScript action runs from the repository as it
// is checked out, without `npm install`. The prompts and package.json stay files next to it
// (../../prompts, ../../package.json), read at run time like the CLI reads them.
//
//   node scripts/bundle-action.mjs           write the bundle
//   node scripts/bundle-action.mjs --check   exit 1 when the committed bundle differs from the source
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'action', 'dist', 'index.mjs');
const check = process.argv.includes('--check');

const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/action/main.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  write: false,
  logLevel: 'warning',
  // Bundled CommonJS dependencies call require() for Node's own modules; ESM has none of its own.
  banner: {
    js: "import { createRequire as __issueloopCreateRequire } from 'node:module';\nconst require = __issueloopCreateRequire(import.meta.url);",
  },
});
const built = result.outputFiles[0].text;

if (check) {
  const committed = await readFile(outfile, 'utf8').catch(() => '');
  if (committed !== built) {
    process.stderr.write(
      `action/dist/index.mjs does not match the source (${committed.length} vs ${built.length} bytes): run \`npm run bundle\` and commit the result\n`,
    );
    process.exit(1);
  }
  process.stdout.write(
    `action/dist/index.mjs matches the source (${(built.length / 1024 / 1024).toFixed(1)} MiB)\n`,
  );
} else {
  await mkdir(dirname(outfile), { recursive: true });
  await writeFile(outfile, built);
  process.stdout.write(`wrote action/dist/index.mjs (${(built.length / 1024 / 1024).toFixed(1)} MiB)\n`);
}
