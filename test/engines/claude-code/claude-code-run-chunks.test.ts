import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runClaudeCode } from '../../../src/engines/claude-code/claude-code-run.js';
import { assistant, toolResult, toolUse, user } from './stream-lines.js';

/**
 * runClaudeCode reading stdout as the pipe delivers it: a `claude` of the test's own prints its lines
 * cut at chosen places, and waits (with a deadline) until the engine has read the line before a cut,
 * so the cut really falls between two reads of the pipe.
 */
const dir = mkdtempSync(join(tmpdir(), 'issueloop-claude-chunks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SESSION = '00000002-1111-4222-8333-444444444444';
const RESULT = JSON.stringify({
  type: 'result',
  subtype: 'success',
  is_error: false,
  result: 'done',
  session_id: SESSION,
});

/** An executable printing `pieces` in order; before each piece after the first it waits for `<dir>/go-<n>`. */
function scriptedClaude(name: string, pieces: string[]): string {
  const bin = join(dir, name);
  writeFileSync(
    bin,
    `#!/usr/bin/env node
const { existsSync } = require('node:fs');
const pieces = ${JSON.stringify(pieces)};
const deadline = Date.now() + 10000;
let next = 0;
const step = () => {
  if (next > 0 && !existsSync(${JSON.stringify(join(dir, `${name}-go-`))} + next)) {
    if (Date.now() > deadline) process.exit(9);
    return setTimeout(step, 2);
  }
  process.stdout.write(pieces[next], () => {
    next += 1;
    if (next < pieces.length) step();
  });
};
process.stdin.resume();
process.stdin.on('end', step);
`,
  );
  chmodSync(bin, 0o755);
  return bin;
}

function run(name: string, pieces: string[]) {
  const bin = scriptedClaude(name, pieces);
  const lines: string[] = [];
  let cuts = 0;
  const result = runClaudeCode({
    bin,
    cwd: dir,
    model: 'sonnet',
    prompt: 'go',
    env: { PATH: process.env.PATH ?? '' },
    timeoutMs: 20_000,
    // Each whole line read lets the script print its next piece.
    onLine: (line) => {
      lines.push(line);
      cuts += 1;
      writeFileSync(join(dir, `${name}-go-${cuts}`), '');
    },
  });
  return result.then((r) => ({ ...r, lines }));
}

describe('runClaudeCode: lines cut across reads of the pipe', () => {
  it('regression: a response and a tool result cut mid-line are each read once, whole', async () => {
    const response = assistant({ id: 'm1', content: [toolUse('t1', 'Bash')], usage: { input_tokens: 7 } });
    const failed = user([toolResult('t1', 'x'.repeat(100_000), true)]);
    const result = await run('cut', [
      `${JSON.stringify({ type: 'system', subtype: 'init', session_id: SESSION })}\n${response.slice(0, 20)}`,
      `${response.slice(20)}\n${failed.slice(0, 50_000)}`,
      `${failed.slice(50_000)}\n${RESULT}\n`,
    ]);
    expect(result).toMatchObject({
      ok: true,
      text: 'done',
      sessionId: SESSION,
      modelCalls: 1,
      toolCalls: 1,
      toolErrors: 1,
    });
    expect(result.lines).toHaveLength(4);
    expect(result.lines[1]).toBe(response);
    expect(existsSync(join(dir, 'cut-go-2'))).toBe(true);
  });

  it('reads a last line printed without its newline', async () => {
    const result = await run('tail', [`${assistant({ id: 'm1', content: [] })}\n`, RESULT]);
    expect(result).toMatchObject({ ok: true, text: 'done', modelCalls: 1 });
    expect(result.lines.at(-1)).toBe(RESULT);
  });
});
