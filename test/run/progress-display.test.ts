import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgressDisplay } from '../../src/run/progress-display.js';
import { usage } from '../helpers/fake-model.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { TERMINAL_ACTS } from '../helpers/terminal-acts.js';

afterEach(() => {
  vi.useRealTimers();
});

const modelCall = (costUsd: number) =>
  ({
    type: 'model_call',
    call: 1,
    turnCall: 1,
    model: 'm',
    stopReason: 'tool_use',
    usage: usage(10),
    costUsd,
    contextTokens: 10,
  }) as const;

describe('progress display', () => {
  it('on a terminal: a live line per working issue, redrawn; finished issues and log lines printed above', () => {
    vi.useFakeTimers();
    let now = 0;
    let out = '';
    const display = createProgressDisplay({
      isTTY: true,
      write: (t) => (out += t),
      log: () => undefined,
      now: () => now,
    });
    display.phase(12, 'working');
    // regression: a phase change redraws the live line; it is not a line of its own above it.
    expect(out).toBe('#12  working      0 model calls  $0.00  0s\n');
    display.event(12, modelCall(0.25));
    display.event(12, modelCall(0.5));
    now = 65_000;
    out = '';
    vi.advanceTimersByTime(500);
    expect(out).toContain('\u001b[J');
    expect(out).toContain('#12  working      2 model calls  $0.75  1m 05s');
    out = '';
    display.writeLog('{"msg":"a warning"}\n');
    expect(out.startsWith('\u001b[1A\r\u001b[J{"msg":"a warning"}\n#12  working')).toBe(true);
    display.done(12, 'resolved');
    expect(out).toContain('#12 resolved ($0.75, 1m 05s)\n');
    out = '';
    vi.advanceTimersByTime(500);
    expect(out).toBe('');
    display.stop();
  });

  it('elsewhere: log lines for every phase and outcome, and a heartbeat while a phase lasts', () => {
    vi.useFakeTimers();
    const log = createMemoryLog();
    let out = '';
    const display = createProgressDisplay({
      isTTY: false,
      write: (t) => (out += t),
      log: () => log,
      now: () => 0,
      heartbeatMs: 1_000,
    });
    display.phase(3, 'claimed');
    display.phase(3, 'verifying');
    vi.advanceTimersByTime(1_000);
    display.done(3, 'verify_failed');
    vi.advanceTimersByTime(1_000);
    expect(log.entries.map((e) => e.msg)).toEqual([
      '#3 claimed',
      '#3 verifying',
      '#3  verifying    0 model calls  $0.00  0s (still verifying)',
      '#3 verify_failed ($0.00, 0s)',
    ]);
    display.writeLog('plain\n');
    expect(out).toBe('plain\n');
    display.stop();
  });
});

describe('progress display: text from outside', () => {
  it('draws its own cursor moves around the live lines, and none that came in a label, a phase or an outcome', () => {
    let out = '';
    const display = createProgressDisplay({
      isTTY: true,
      write: (t) => (out += t),
      log: () => undefined,
      now: () => 0,
      label: (n) => `task ${n}\u001b]0;pwned\u0007`,
    });
    // Phases are issueloop's own words; one that carried a sequence would still be cleaned.
    display.phase(3, 'working\u001b[2J' as 'working');
    display.done(3, 'resolved\u009b2J\u202e');
    display.stop();
    expect(out).toContain('task 3  working');
    expect(out).toContain('task 3 resolved');
    expect(out).toContain('\u001b[1A\r\u001b[J');
    expect(out.replaceAll('\u001b[1A\r', '').replaceAll('\u001b[J', '')).not.toMatch(TERMINAL_ACTS);
  });
});

describe('progress display: a best-of-N claim (issue 32 item 1)', () => {
  it("names the chosen attempt on the issue's last line, and cleans the judge's reason for the terminal", () => {
    let out = '';
    const display = createProgressDisplay({
      isTTY: true,
      write: (t) => (out += t),
      log: () => undefined,
      now: () => 0,
    });
    display.phase(5, 'working');
    display.done(5, 'resolved', {
      n: 3,
      ran: [
        { k: 1, outcome: 'verify_failed' },
        { k: 2, outcome: 'resolved' },
        { k: 3, outcome: 'not_chosen' },
      ],
      winner: 2,
      why: 'the smaller diff\u001b]0;pwned\u0007',
    });
    display.phase(6, 'working');
    display.done(6, 'verify_failed', {
      n: 2,
      ran: [
        { k: 1, outcome: 'verify_failed' },
        { k: 2, outcome: 'verify_failed' },
      ],
      why: 'x',
    });
    display.phase(7, 'working');
    display.done(7, 'resolved');
    display.stop();
    expect(out).toContain('#5 resolved ($0.00, 0s); best of 3: attempt 2 chosen (the smaller diff');
    expect(out).toContain('#6 verify_failed ($0.00, 0s); 2 attempts, none passed verify\n');
    expect(out).toContain('#7 resolved ($0.00, 0s)\n');
    expect(out.replaceAll('\u001b[1A\r', '').replaceAll('\u001b[J', '')).not.toMatch(TERMINAL_ACTS);
  });
});

describe('newcomer: live lines fit a narrow terminal (cut to its width)', () => {
  /** The live lines of the last redraw: what follows the last erase. */
  const lastFrame = (out: string) => (out.split('\u001b[J').at(-1) ?? '').split('\n').filter(Boolean);

  function narrowTerminal(columns: number) {
    const size = { columns };
    const listeners = new Set<() => void>();
    let out = '';
    const display = createProgressDisplay({
      isTTY: true,
      write: (t) => (out += t),
      log: () => undefined,
      now: () => 185_000,
      columns: () => size.columns,
      onResize: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
    return {
      display,
      size,
      listeners,
      output: () => out,
      reset: () => {
        out = '';
      },
      resize: (to: number) => {
        size.columns = to;
        for (const listener of listeners) listener();
      },
    };
  }

  it.each([40, 20])('cuts each live line to a terminal %i columns wide, with an ellipsis', (columns) => {
    const term = narrowTerminal(columns);
    term.display.phase(12, 'working');
    term.display.phase(13, 'verifying');
    const frame = lastFrame(term.output());
    expect(frame).toHaveLength(2);
    for (const line of frame) {
      expect([...line].length).toBe(columns);
      expect(line.endsWith('…')).toBe(true);
    }
    expect(frame[0]?.startsWith('#12  working')).toBe(true);
    // The next redraw moves up one row per live line: none of them wrapped onto a second row.
    term.reset();
    term.display.phase(12, 'verifying');
    expect(term.output().startsWith('\u001b[2A\r\u001b[J')).toBe(true);
    term.display.stop();
  });

  it('leaves a live line that fits whole', () => {
    const term = narrowTerminal(200);
    term.display.phase(12, 'working');
    expect(lastFrame(term.output())).toEqual(['#12  working      0 model calls  $0.00  0s']);
    term.display.stop();
  });

  it('re-reads the width on resize: redrawn at once at the new width, erasing the rows the old lines took', () => {
    const term = narrowTerminal(40);
    term.display.phase(12, 'working');
    term.display.phase(13, 'working');
    term.reset();
    term.resize(20);
    // Two 40-column lines take two rows each once the terminal rewraps them at 20 columns.
    expect(term.output().startsWith('\u001b[4A\r\u001b[J')).toBe(true);
    expect(lastFrame(term.output()).map((line) => [...line].length)).toEqual([20, 20]);
    term.display.stop();
    expect(term.listeners.size).toBe(0);
  });
});
