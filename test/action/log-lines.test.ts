import { describe, expect, it } from 'vitest';
import { readableLine } from '../../src/action/log-lines.js';

describe('readableLine', () => {
  it('turns a pino JSON line into "level  message  key=value", and says which issue it belongs to', () => {
    const line = JSON.stringify({
      level: 40,
      time: 1,
      pid: 9,
      msg: 'could not renew',
      issue: 7,
      leftMs: 1200,
      err: { code: 'X' },
    });
    expect(readableLine(`${line}\n`)).toEqual({
      issue: 7,
      text: 'warn   could not renew  issue=7  leftMs=1200  err={"code":"X"}',
    });
    expect(readableLine(JSON.stringify({ level: 30, msg: 'round 1: 1 claimed', round: 1 }))).toEqual({
      text: 'info   round 1: 1 claimed  round=1',
    });
  });

  it('passes a line that is not JSON through as it is', () => {
    expect(readableLine('plain text  \n')).toEqual({ text: 'plain text' });
  });
});
