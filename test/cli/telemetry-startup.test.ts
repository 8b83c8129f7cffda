import { describe, expect, it } from 'vitest';
import { CLI, runNodeScript } from '../helpers/cli.js';

// Off costs nothing: the built CLI's --help loads no @opentelemetry module (the SDK and exporters
// are loaded by dynamic import only when an OTLP endpoint is configured). Node's module hooks list
// every module the process loads, ESM and CommonJS alike.
const LIST_LOADED = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(loaded) + '\\n'));
`;

async function loadedBy(args: readonly string[], env: Record<string, string> = {}): Promise<string[]> {
  const result = await runNodeScript(CLI, args, {
    env,
    nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(LIST_LOADED)}`],
  });
  expect(result.code).toBe(0);
  const line = result.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  return JSON.parse(line?.slice('LOADED '.length) ?? '[]') as string[];
}

describe('telemetry off costs nothing', () => {
  it('issueloop --help loads no @opentelemetry module, also with an OTLP endpoint set', async () => {
    const envs: Record<string, string>[] = [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }];
    for (const env of envs) {
      const loaded = await loadedBy(['--help'], env);
      // Anchor: the list is real (the executable and its start-up chunks are in it).
      expect(loaded.some((url) => url.endsWith('/dist/bin/issueloop.js'))).toBe(true);
      expect(loaded.filter((url) => url.includes('/dist/bin/')).length).toBeGreaterThan(1);
      expect(loaded.filter((url) => url.includes('@opentelemetry'))).toEqual([]);
    }
  });
});

// Node's own modules a process loaded, in the order it loaded them (builtins are not seen by hooks).
const LIST_BUILTINS = `
process.on('exit', () => process.stderr.write('BUILTINS ' + JSON.stringify(process.moduleLoadList) + '\\n'));
`;

describe('start-up of the bundled executable', () => {
  it('regression: --help loads no node:child_process (commander imported it, with net and dgram, for subcommands issueloop never declares)', async () => {
    const result = await runNodeScript(CLI, ['--help'], {
      nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(LIST_BUILTINS)}`],
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: issueloop');
    const line = result.stderr.split('\n').find((l) => l.startsWith('BUILTINS '));
    const builtins = JSON.parse(line?.slice('BUILTINS '.length) ?? '[]') as string[];
    // Anchor: the list is real (commander's own imports are in it).
    expect(builtins).toContain('NativeModule events');
    // (net itself is loaded here for the test's stdout pipe; a terminal or a file needs none.)
    expect(builtins.filter((name) => /child_process|dgram/.test(name))).toEqual([]);
  });
});
