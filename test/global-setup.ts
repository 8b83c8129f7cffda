import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds dist/ from src/ (and the bundled executable) so that spawned-CLI tests run the code under test. */
export default function setup(): void {
  // For quick runs of unit tests that never spawn the CLI, while src/ is mid-edit elsewhere.
  if (process.env.ISSUELOOP_SKIP_BUILD === '1') return;
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  execFileSync(process.execPath, ['scripts/bundle-cli.mjs'], { cwd: root, stdio: 'inherit' });
  chmodSync(`${root}dist/cli/main.js`, 0o755);
}
