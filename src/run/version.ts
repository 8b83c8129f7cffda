import { createRequire } from 'node:module';

/** The package version, read from package.json next to the built files (dist/cli → ../../). */
export function readVersion(): string {
  const require = createRequire(import.meta.url);
  const pkg = require('../../package.json') as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}
