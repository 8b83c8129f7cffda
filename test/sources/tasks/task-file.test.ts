import { describe, expect, it } from 'vitest';
import { parseTaskFile, TaskFileError } from '../../../src/sources/tasks/task-file.js';

function problemsOf(text: string): Array<[number, string]> {
  try {
    parseTaskFile(text, 'plan.md');
  } catch (err) {
    if (err instanceof TaskFileError) return err.problems.map((p) => [p.line, p.message]);
    throw err;
  }
  throw new Error('expected a TaskFileError');
}

describe('parseTaskFile', () => {
  it('reads groups, tasks in file order, the boot directive, a title, comments and continuation lines', () => {
    const parsed = parseTaskFile(
      [
        '<!-- boot: docs/boot.md -->',
        '# Release plan',
        '',
        '## Backend',
        '- Add the /health endpoint',
        '- [ ] Log request ids',
        '  in every handler,',
        '  not only the slow ones',
        '<!-- later: metrics -->',
        '## Docs ##',
        '* Document /health',
      ].join('\n'),
    );
    expect(parsed.boot).toEqual({ path: 'docs/boot.md', line: 1 });
    expect(parsed.groups.map((g) => [g.name, g.line, g.tasks.length])).toEqual([
      ['Backend', 4, 2],
      ['Docs', 10, 1],
    ]);
    expect(parsed.tasks.map((t) => [t.index, t.group, t.line, t.text])).toEqual([
      [1, 'Backend', 5, 'Add the /health endpoint'],
      [2, 'Backend', 6, 'Log request ids\nin every handler,\nnot only the slow ones'],
      [3, 'Docs', 11, 'Document /health'],
    ]);
  });

  it('gives a task the same id when the rest of the file changes, another id in another group', () => {
    const before = parseTaskFile('## A\n- one\n- two\n');
    const after = parseTaskFile('# Title\n\n## A\n- zero\n- one\n- two\n## B\n- one\n');
    const id = (file: ReturnType<typeof parseTaskFile>, group: string, text: string) =>
      file.tasks.find((t) => t.group === group && t.text === text)?.id;
    expect(id(after, 'A', 'one')).toBe(id(before, 'A', 'one'));
    expect(id(after, 'A', 'two')).toBe(id(before, 'A', 'two'));
    expect(id(after, 'B', 'one')).not.toBe(id(after, 'A', 'one'));
    expect(id(before, 'A', 'one')).toMatch(/^[0-9a-f]{12}$/);
  });

  it('reports every malformed line at once, with its line number', () => {
    expect(
      problemsOf(
        [
          '- orphan task',
          '## Build',
          'Some prose that is not a task',
          '- ',
          '### Details',
          '<!-- boot: late.md -->',
          '## Empty',
          '## build',
          '- fine',
          '- fine',
        ].join('\n'),
      ),
    ).toEqual([
      [1, 'a task before any "## " group heading: put it under one'],
      [2, 'group "Build" has no tasks'],
      [3, 'expected "## Group" or "- task", got "Some prose that is not a task"'],
      [4, 'empty task: write what should be done after "- "'],
      [5, 'only "## " headings name groups; use "## Name" or drop the heading'],
      [6, 'the boot directive must come before the first "## " heading'],
      [7, 'group "Empty" has no tasks'],
      [8, 'group "build" again (first on line 2): merge them'],
      [10, 'the same task as line 9 in the same group'],
    ]);
  });

  it('names the file, each line and the expected format in the message; an empty file is an error', () => {
    const err = (() => {
      try {
        parseTaskFile('\n\n', 'plan.md');
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(TaskFileError);
    expect(err?.message).toBe(
      'plan.md is not a task file issueloop can run (1 problem):\n  plan.md:1: no "## " group with tasks in this file\nexpected "## Group" headings with "- task" items under them',
    );
    expect(problemsOf('<!-- boot: a.md -->\n<!-- boot: b.md -->\n## G\n- t\n')).toEqual([
      [2, 'a second boot directive (the first is on line 1)'],
    ]);
  });

  it('regression: a group named "C#" keeps its name; only closing hashes after a space are dropped', () => {
    expect(parseTaskFile('## C#\n- port it\n## Docs ##\n- write\n').groups.map((g) => g.name)).toEqual([
      'C#',
      'Docs',
    ]);
  });

  it('accepts Windows line endings and a byte-order mark', () => {
    const parsed = parseTaskFile('\uFEFF## G\r\n- first\r\n- second\r\n');
    expect(parsed.tasks.map((t) => t.text)).toEqual(['first', 'second']);
  });

  it("an engine directive right under a heading sets that group's engine (per task group)", () => {
    const file = parseTaskFile(
      '## Backend\n<!-- engine: claude-code -->\n- Add the endpoint\n- Test it\n## Docs\n- Write it up\n',
    );
    expect(file.groups.map((g) => [g.name, g.engine])).toEqual([
      ['Backend', 'claude-code'],
      ['Docs', undefined],
    ]);
    expect(file.tasks.map((t) => t.engine)).toEqual(['claude-code', 'claude-code', undefined]);
    // The engine is not part of a task's identity: switching engines keeps its state.
    expect(parseTaskFile('## Backend\n- Add the endpoint\n').tasks[0]?.id).toBe(file.tasks[0]?.id);
  });

  it('a misplaced, repeated or unknown engine directive is an error with its line', () => {
    expect(
      problemsOf(
        [
          '<!-- engine: native -->',
          '## A',
          '<!-- engine: claude-code -->',
          '<!-- engine: native -->',
          '- one',
          '<!-- engine: native -->',
          '## B',
          '<!-- engine: gpt -->',
          '- two',
        ].join('\n'),
      ),
    ).toEqual([
      [1, 'an engine directive belongs right under a "## " group heading'],
      [4, 'group "A" names its engine twice'],
      [6, 'the engine directive of group "A" must come before its first task'],
      [8, 'engine "gpt": expected one of native, claude-code'],
    ]);
  });
});
