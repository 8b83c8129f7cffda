import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLogGroups, type GroupOutput } from '../../src/action/log-groups.js';

type Call = { kind: 'write'; text: string } | { kind: 'start'; name: string } | { kind: 'end' };

/** Every write, startGroup and endGroup, in the order they were made. */
function recorder(): { out: GroupOutput; calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    out: {
      write: (text) => calls.push({ kind: 'write', text }),
      startGroup: (name) => calls.push({ kind: 'start', name }),
      endGroup: () => calls.push({ kind: 'end' }),
    },
  };
}

/** Calls as short strings: `[#5 Title` opens a group, `]` closes it, anything else is a line. */
const show = (calls: readonly Call[]) =>
  calls.map((c) => (c.kind === 'write' ? c.text : c.kind === 'start' ? `[${c.name}` : ']'));

/** The name of the group open at the end of `calls`, if any. */
function openGroupName(calls: readonly Call[]): string | undefined {
  const last = calls.findLast((c) => c.kind !== 'write');
  return last?.kind === 'start' ? last.name : undefined;
}

/** startGroup and endGroup alternate strictly, starting with startGroup; returns whether one is open. */
function expectAlternating(calls: readonly Call[]): boolean {
  let open = false;
  for (const [index, call] of calls.entries()) {
    if (call.kind === 'start') {
      expect(open, `startGroup at ${index} while a group is open: ${show(calls).join(' | ')}`).toBe(false);
      open = true;
    } else if (call.kind === 'end') {
      expect(open, `endGroup at ${index} with no group open: ${show(calls).join(' | ')}`).toBe(true);
      open = false;
    }
  }
  return open;
}

function setup() {
  const { out, calls } = recorder();
  return { calls, groups: createLogGroups(out) };
}

describe('createLogGroups', () => {
  it('streams a single issue live inside its group', () => {
    const { calls, groups } = setup();
    groups.begin(5, 'Title');
    expect(show(calls)).toEqual(['[#5 Title']);
    groups.line(5, 'reading the issue');
    expect(show(calls)).toEqual(['[#5 Title', 'reading the issue']);
    groups.line(5, 'editing greet.js');
    groups.end(5, '#5 resolved');
    expect(show(calls)).toEqual(['[#5 Title', 'reading the issue', 'editing greet.js', '#5 resolved', ']']);
    groups.close();
    expect(calls).toHaveLength(5);
    expect(expectAlternating(calls)).toBe(false);
  });

  it('names a group after the number alone when the title is empty', () => {
    const { calls, groups } = setup();
    groups.begin(8, '');
    groups.end(8, 'done');
    expect(show(calls)).toEqual(['[#8', 'done', ']']);
  });

  it('writes lines without an issue where they fall, inside or outside a group', () => {
    const { calls, groups } = setup();
    groups.line(undefined, 'round 1: 1 issue');
    groups.begin(5, 'Title');
    groups.line(undefined, 'lease renewed');
    groups.line(99, 'a line of an issue no session began');
    groups.end(5, 'done');
    groups.line(undefined, 'round 1 done');
    expect(show(calls)).toEqual([
      'round 1: 1 issue',
      '[#5 Title',
      'lease renewed',
      'a line of an issue no session began',
      'done',
      ']',
      'round 1 done',
    ]);
    expect(expectAlternating(calls)).toBe(false);
  });

  it('holds a second parallel session and writes it as its own group once the first closes', () => {
    const { calls, groups } = setup();
    groups.begin(1, 'One');
    groups.begin(2, 'Two');
    groups.line(1, '1a');
    groups.line(2, '2a');
    groups.line(2, '2b');
    expect(show(calls)).toEqual(['[#1 One', '1a']);
    groups.line(1, '1b');
    groups.end(1, '1 done');
    expect(show(calls)).toEqual(['[#1 One', '1a', '1b', '1 done', ']', '[#2 Two', '2a', '2b']);
    // Still running: from now on it streams live.
    groups.line(2, '2c');
    expect(show(calls).at(-1)).toBe('2c');
    groups.end(2, '2 done');
    expect(show(calls).slice(-3)).toEqual(['2c', '2 done', ']']);
    groups.close();
    expect(expectAlternating(calls)).toBe(false);
  });

  it('opens the group of a held session that has not logged yet once the open one closes', () => {
    const { calls, groups } = setup();
    groups.begin(1, 'One');
    groups.begin(2, 'Two');
    groups.end(1, '1 done');
    expect(show(calls)).toEqual(['[#1 One', '1 done', ']', '[#2 Two']);
    groups.line(2, '2a');
    expect(show(calls).at(-1)).toBe('2a');
  });

  it('writes a held issue that finished first whole once the open one closes', () => {
    const { calls, groups } = setup();
    groups.begin(1, 'One');
    groups.begin(2, 'Two');
    groups.line(2, '2a');
    groups.end(2, '2 done');
    expect(show(calls)).toEqual(['[#1 One']);
    groups.line(1, '1a');
    groups.end(1, '1 done');
    expect(show(calls)).toEqual(['[#1 One', '1a', '1 done', ']', '[#2 Two', '2a', '2 done', ']']);
    // Nothing is open now: the next session opens its group at once.
    groups.begin(3, 'Three');
    expect(show(calls).at(-1)).toBe('[#3 Three');
    groups.close();
    expect(show(calls).at(-1)).toBe(']');
    expect(expectAlternating(calls)).toBe(false);
  });

  it('after the open one closes, writes finished held issues then streams the next running one', () => {
    const { calls, groups } = setup();
    groups.begin(1, 'One');
    groups.begin(2, 'Two');
    groups.begin(3, 'Three');
    groups.line(2, '2a');
    groups.end(2, '2 done');
    groups.line(3, '3a');
    groups.end(1, '1 done');
    expect(show(calls)).toEqual([
      '[#1 One',
      '1 done',
      ']',
      '[#2 Two',
      '2a',
      '2 done',
      ']',
      '[#3 Three',
      '3a',
    ]);
    groups.line(3, '3b');
    expect(show(calls).at(-1)).toBe('3b');
    groups.end(3, '3 done');
    expect(show(calls).slice(-2)).toEqual(['3 done', ']']);
    expect(expectAlternating(calls)).toBe(false);
  });

  it('keeps a finished issue waiting behind a running one that holds the group', () => {
    const { calls, groups } = setup();
    groups.begin(1, 'One');
    groups.begin(2, 'Two');
    groups.begin(3, 'Three');
    groups.line(3, '3a');
    groups.end(3, '3 done');
    groups.end(1, '1 done');
    expect(show(calls)).toEqual(['[#1 One', '1 done', ']', '[#2 Two']);
    groups.end(2, '2 done');
    expect(show(calls).slice(4)).toEqual(['2 done', ']', '[#3 Three', '3a', '3 done', ']']);
    expect(expectAlternating(calls)).toBe(false);
  });

  it('close() writes everything still waiting and leaves no group open', () => {
    const { calls, groups } = setup();
    groups.begin(1, 'One');
    groups.begin(2, 'Two');
    groups.begin(3, 'Three');
    groups.line(1, '1a');
    groups.line(2, '2a');
    groups.line(3, '3a');
    groups.end(3, '3 done');
    groups.close();
    expect(show(calls)).toEqual([
      '[#1 One',
      '1a',
      ']',
      '[#2 Two',
      '2a',
      ']',
      '[#3 Three',
      '3a',
      '3 done',
      ']',
    ]);
    expect(expectAlternating(calls)).toBe(false);
  });

  it('close() with nothing open or waiting writes nothing', () => {
    const { calls, groups } = setup();
    groups.close();
    groups.begin(1, 'One');
    groups.end(1, 'done');
    const before = calls.length;
    groups.close();
    expect(calls).toHaveLength(before);
  });

  // work-item.ts logs the productivity warning with the issue's child logger after progress.done
  // (that is, after end): a line of an issue whose session already ended must not leave a group open.
  it('regression: a line logged after its issue ended (the low-productivity warning) does not reopen its group', () => {
    const { calls, groups } = setup();
    groups.begin(1, 'One');
    groups.end(1, '#1: resolved');
    groups.line(1, 'warn  low productivity: 40 tool calls, 0 files changed');
    groups.begin(2, 'Two');
    groups.line(2, '2a');
    // The next session streams live in its own group.
    expect(openGroupName(calls)).toBe('#2 Two');
    expect(show(calls).at(-1)).toBe('2a');
    expect(calls.filter((c) => c.kind === 'start' && c.name === '#1 One')).toHaveLength(1);
    groups.close();
    expect(expectAlternating(calls)).toBe(false);
  });

  it('regression: a line of an ended issue logged while another streams does not hold a group open', () => {
    const { calls, groups } = setup();
    groups.begin(1, 'One');
    groups.end(1, '#1: resolved');
    groups.begin(2, 'Two');
    groups.line(1, 'warn  low productivity: 40 tool calls, 0 files changed');
    groups.end(2, '#2: resolved');
    // Nothing runs now: no group may be left open waiting for a session that already ended.
    expect(openGroupName(calls)).toBeUndefined();
    groups.begin(3, 'Three');
    groups.line(3, '3a');
    expect(openGroupName(calls)).toBe('#3 Three');
    expect(show(calls).at(-1)).toBe('3a');
    groups.close();
    expect(expectAlternating(calls)).toBe(false);
  });

  it('never nests groups: startGroup and endGroup alternate strictly', () => {
    // A checker that could not fail would prove nothing: it must reject nesting and a stray end.
    expect(() =>
      expectAlternating([
        { kind: 'start', name: 'a' },
        { kind: 'start', name: 'b' },
      ]),
    ).toThrow();
    expect(() => expectAlternating([{ kind: 'end' }])).toThrow();
  });
});

/** One call to the log groups; issue 0 stands for a line of no issue. */
type Step =
  | { op: 'begin'; issue: number }
  | { op: 'line'; issue: number; text: string }
  | { op: 'end'; issue: number };

const title = (issue: number) => `T${issue}`;
const lastLine = (issue: number) => `#${issue} last`;

/** Per-issue scripts (begin, lines, end) and free lines, merged in the order `picks` chooses. */
function interleave(lineCounts: number[], freeLines: number, picks: number[]): Step[] {
  const queues: Step[][] = lineCounts.map((count, index) => {
    const issue = index + 1;
    return [
      { op: 'begin', issue },
      ...Array.from({ length: count }, (_, j): Step => ({ op: 'line', issue, text: `#${issue} line ${j}` })),
      { op: 'end', issue },
    ];
  });
  queues.push(
    Array.from({ length: freeLines }, (_, j): Step => ({ op: 'line', issue: 0, text: `free ${j}` })),
  );
  const steps: Step[] = [];
  let pick = 0;
  for (;;) {
    const live = queues.filter((q) => q.length > 0);
    if (live.length === 0) return steps;
    const queue = live[(picks[pick++] ?? 0) % live.length];
    const step = queue?.shift();
    if (step) steps.push(step);
  }
}

/** The lines an issue logs in `steps`, in order, its last line included when it ended there. */
function linesOf(steps: readonly Step[], issue: number): string[] {
  return steps.flatMap((s) => {
    if (s.issue !== issue) return [];
    if (s.op === 'line') return [s.text];
    return s.op === 'end' ? [lastLine(issue)] : [];
  });
}

describe('createLogGroups: any interleaving of up to 4 sessions', () => {
  it('writes each issue whole, in order, in one group of its own, never nesting', () => {
    const scenario = fc.record({
      lineCounts: fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 4 }),
      freeLines: fc.nat({ max: 4 }),
      picks: fc.array(fc.nat(), { maxLength: 40 }),
      // The run may stop (close()) while sessions are still running.
      stopAfter: fc.option(fc.nat({ max: 30 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(scenario, ({ lineCounts, freeLines, picks, stopAfter }) => {
        const steps = interleave(lineCounts, freeLines, picks).slice(0, stopAfter);
        const { calls, groups } = setup();
        const given: string[] = [];
        for (const step of steps) {
          const live = openGroupName(calls) === `#${step.issue} ${title(step.issue)}`;
          if (step.op === 'begin') groups.begin(step.issue, title(step.issue));
          else if (step.op === 'end') {
            given.push(lastLine(step.issue));
            groups.end(step.issue, lastLine(step.issue));
          } else {
            given.push(step.text);
            groups.line(step.issue === 0 ? undefined : step.issue, step.text);
            // A line of no issue is written where it falls, and so is a line of the open group.
            if (step.issue === 0 || live) expect(calls.at(-1)).toEqual({ kind: 'write', text: step.text });
          }
          expectAlternating(calls);
          // Lines wait only while another issue's group is open.
          if (openGroupName(calls) === undefined) {
            const written = new Set(calls.flatMap((c) => (c.kind === 'write' ? [c.text] : [])));
            expect(given.filter((text) => !written.has(text))).toEqual([]);
          }
        }
        groups.close();
        expect(expectAlternating(calls)).toBe(false);

        const written = calls.flatMap((c) => (c.kind === 'write' ? [c.text] : []));
        expect([...written].sort()).toEqual([...given].sort());

        // The lines written inside each group, in order.
        const groupNames: string[] = [];
        const perGroup: string[][] = [];
        let current = -1;
        for (const call of calls) {
          if (call.kind === 'start') {
            groupNames.push(call.name);
            perGroup.push([]);
            current = groupNames.length - 1;
          } else if (call.kind === 'end') {
            current = -1;
          } else if (current >= 0) {
            perGroup[current]?.push(call.text);
          }
        }
        const begun = steps.flatMap((s) => (s.op === 'begin' ? [s.issue] : []));
        expect([...groupNames].sort()).toEqual(begun.map((issue) => `#${issue} ${title(issue)}`).sort());
        for (const issue of begun) {
          const index = groupNames.indexOf(`#${issue} ${title(issue)}`);
          const own = (perGroup[index] ?? []).filter((text) => !text.startsWith('free '));
          expect(own, `group #${issue} holds exactly its lines, in order`).toEqual(linesOf(steps, issue));
        }
      }),
      { numRuns: 500 },
    );
  });
});
