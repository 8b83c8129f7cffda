import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.js';
import { createRedactor } from '../../src/core/redact.js';
import { TERMINAL_ACTS } from '../helpers/terminal-acts.js';

const TOKEN = `ghp_${'Q'.repeat(36)}`;
const SECRET = 'hunter2-configured';

async function capture(pretty: boolean) {
  const lines: string[] = [];
  const log = await createLogger({
    level: 'debug',
    pretty,
    redact: createRedactor([SECRET]),
    write: (line) => lines.push(line),
  });
  return { log, lines };
}

describe('createLogger', () => {
  it('writes JSON lines with child bindings when not on a TTY', async () => {
    const { log, lines } = await capture(false);
    log.child({ run: 'r1', issue: 7 }).info({ attempt: 2 }, 'claimed');
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '');
    expect(entry).toMatchObject({ level: 30, run: 'r1', issue: 7, attempt: 2, msg: 'claimed' });
  });

  it('never lets a token or a configured secret through, in messages, fields or errors', async () => {
    const { log, lines } = await capture(false);
    log.warn({ header: `token ${TOKEN}`, nested: { value: SECRET } }, `using ${TOKEN}`);
    log.error({ err: new Error(`failed with ${SECRET}`) }, 'boom');
    const all = lines.join('');
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain(SECRET);
    expect(all).toContain('[REDACTED]');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('prints readable, redacted lines on a TTY', async () => {
    const { log, lines } = await capture(true);
    log.info({ issue: 3 }, `waiting 8s before retry... ${TOKEN}`);
    expect(lines.join('')).toContain('waiting 8s before retry...');
    expect(lines.join('')).not.toContain(TOKEN);
    expect(lines.join('').trimStart().startsWith('{')).toBe(false);
  });

  it('drops lines below the level', async () => {
    const lines: string[] = [];
    const log = await createLogger({
      level: 'warn',
      pretty: false,
      redact: (t) => t,
      write: (l) => lines.push(l),
    });
    log.info({}, 'hidden');
    log.warn({}, 'shown');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['shown']);
  });
});

describe('createLogger: text from GitHub or the model in a log line', () => {
  const hostile = 'test\u001b]0;pwned\u0007\u001b[2J\u009b2J\u202eevil';

  it('regression: a pretty line shows it as text, not as escape sequences (colours off)', async () => {
    const lines: string[] = [];
    const log = await createLogger({
      level: 'info',
      pretty: true,
      color: false,
      redact: (text) => text,
      write: (line) => lines.push(line),
    });
    log.warn({ check: hostile }, `check ${hostile} failed`);
    const all = lines.join('');
    expect(all).not.toMatch(TERMINAL_ACTS);
    expect(all).toContain('check testevil failed');
  });

  it('a JSON line keeps the same data, with what a terminal acts on escaped', async () => {
    const { log, lines } = await capture(false);
    log.warn({ check: hostile }, 'm');
    expect(lines.join('')).not.toMatch(TERMINAL_ACTS);
    expect(JSON.parse(lines[0] ?? '').check).toBe(hostile);
  });
});
