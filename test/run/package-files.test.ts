import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG } from '../../src/run/package-files.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('files shipped in the package, found relative to the code', () => {
  it('the example configuration init writes is the shipped one, two levels above the module', () => {
    expect(fileURLToPath(EXAMPLE_CONFIG)).toBe(`${root}examples/issueloop.config.yaml`);
    expect(readFileSync(EXAMPLE_CONFIG, 'utf8')).toMatch(/^# issueloop\.config\.yaml/);
    const { files } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { files: string[] };
    expect(files).toContain('examples/issueloop.config.yaml');
  });

  it('regression: the bundled executable keeps its chunks two levels down, where these paths hold', () => {
    // A chunk in a deeper folder would read ../../examples/ from dist/bin/<folder>/ and miss it.
    const bin = `${root}dist/bin`;
    expect(existsSync(bin), 'dist/bin is built by the test run (npm run build)').toBe(true);
    const entries = readdirSync(bin, { withFileTypes: true });
    expect(entries.some((e) => e.name === 'issueloop.js')).toBe(true);
    expect(entries.filter((e) => e.isDirectory()).map((e) => e.name)).toEqual([]);
  });

  it('regression: no chunk of the executable is a CommonJS package reached by import() (its named exports were lost: the Redis store and pretty logs broke)', () => {
    const chunks = readdirSync(`${root}dist/bin`).filter((name) => name.endsWith('.js'));
    expect(chunks).toContain('issueloop.js');
    const defaultOnly = chunks.filter((name) =>
      /^export default require_\w+\(\);$/m.test(readFileSync(`${root}dist/bin/${name}`, 'utf8')),
    );
    expect(defaultOnly).toEqual([]);
  });
});
