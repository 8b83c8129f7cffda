import { createHash } from 'node:crypto';
import { UsageError } from '../../core/errors.js';

/**
 * A local backlog in Markdown (seed 001): `## Group` headings, `- task` items under them, an
 * optional `<!-- boot: path -->` directive before the first heading, and an optional
 * `<!-- engine: native|claude-code -->` directive right under a heading. A `# Title` line may open the
 * file, `<!-- comments -->` and blank lines are ignored, and lines indented under an item continue
 * it. Anything else is an error with its line number: a plan that is half understood must not run.
 */
export interface Task {
  /** Stable across edits elsewhere in the file: a hash of the group name and the task text. */
  id: string;
  /** 1-based position in the file, for people. */
  index: number;
  group: string;
  text: string;
  line: number;
  /** The group's `<!-- engine: … -->` directive, when it has one. */
  engine?: TaskEngine;
}

export type TaskEngine = 'native' | 'claude-code';
const ENGINES: readonly TaskEngine[] = ['native', 'claude-code'];

export interface TaskGroup {
  name: string;
  line: number;
  /** `<!-- engine: claude-code -->` right under the heading: this group's engine. */
  engine?: TaskEngine;
  tasks: Task[];
}

export interface TaskFile {
  /** The boot directive's path, as written (relative to the task file's directory). */
  boot?: { path: string; line: number };
  groups: TaskGroup[];
  tasks: Task[];
}

export interface TaskFileProblem {
  line: number;
  message: string;
}

/** A task file that cannot be run: every problem, each with its line; exit code 2. */
export class TaskFileError extends UsageError {
  readonly problems: readonly TaskFileProblem[];

  constructor(file: string, problems: readonly TaskFileProblem[]) {
    const lines = problems.map((p) => `  ${file}:${p.line}: ${p.message}`);
    super(
      `${file} is not a task file issueloop can run (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}\nexpected "## Group" headings with "- task" items under them`,
    );
    this.problems = problems;
  }
}

const BOOT = /^<!--\s*boot:\s*(.+?)\s*-->$/;
const ENGINE = /^<!--\s*engine:\s*(.*?)\s*-->$/;
const COMMENT = /^<!--.*-->$/;
const GROUP = /^##\s+(.+?)(?:\s+#+)?\s*$/;
const ITEM = /^[-*]\s+(?:\[[ xX]\]\s+)?(.*)$/;
const CONTINUATION = /^(?: {2,}|\t)\S/;

function taskId(group: string, text: string): string {
  return createHash('sha256').update(`${group}\n${text}`).digest('hex').slice(0, 12);
}

/** Why an engine directive cannot be used here, or undefined when it can. */
function engineProblem(group: TaskGroup | undefined, value: string): string | undefined {
  if (!group) return 'an engine directive belongs right under a "## " group heading';
  if (group.tasks.length > 0)
    return `the engine directive of group "${group.name}" must come before its first task`;
  if (group.engine) return `group "${group.name}" names its engine twice`;
  if (!(ENGINES as readonly string[]).includes(value))
    return `engine "${value}": expected one of ${ENGINES.join(', ')}`;
  return undefined;
}

/** The groups' tasks numbered in file order with their stable ids and engines; empty groups and twins are problems. */
function numberTasks(groups: TaskGroup[], problems: TaskFileProblem[]): Task[] {
  for (const group of groups) {
    if (group.tasks.length === 0)
      problems.push({ line: group.line, message: `group "${group.name}" has no tasks` });
  }
  if (groups.length === 0 && problems.length === 0) {
    problems.push({ line: 1, message: 'no "## " group with tasks in this file' });
  }
  const tasks = groups.flatMap((g) => g.tasks);
  tasks.forEach((task, i) => {
    task.index = i + 1;
    task.id = taskId(task.group, task.text);
  });
  for (const group of groups) {
    if (group.engine) for (const task of group.tasks) task.engine = group.engine;
  }
  const seen = new Map<string, Task>();
  for (const task of tasks) {
    const twin = seen.get(task.id);
    if (twin)
      problems.push({ line: task.line, message: `the same task as line ${twin.line} in the same group` });
    else seen.set(task.id, task);
  }
  return tasks;
}

export function parseTaskFile(text: string, file = 'tasks.md'): TaskFile {
  const problems: TaskFileProblem[] = [];
  const groups: TaskGroup[] = [];
  let boot: TaskFile['boot'];
  let current: TaskGroup | undefined;
  /** The item being read: continuation lines are appended to it. */
  let open: { line: number; parts: string[] } | undefined;
  let seenTitle = false;

  const closeItem = () => {
    if (!open || !current) return;
    const body = open.parts.join('\n').trim();
    if (body === '')
      problems.push({ line: open.line, message: 'empty task: write what should be done after "- "' });
    else current.tasks.push({ id: '', index: 0, group: current.name, text: body, line: open.line });
    open = undefined;
  };

  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    const trimmed = raw.trim();
    if (open && CONTINUATION.test(raw)) {
      open.parts.push(trimmed);
      return;
    }
    if (trimmed === '') return;
    const bootMatch = BOOT.exec(trimmed);
    if (bootMatch) {
      if (groups.length > 0) {
        problems.push({ line, message: 'the boot directive must come before the first "## " heading' });
      } else if (boot) {
        problems.push({ line, message: `a second boot directive (the first is on line ${boot.line})` });
      } else boot = { path: bootMatch[1] as string, line };
      return;
    }
    const engineMatch = ENGINE.exec(trimmed);
    if (engineMatch) {
      closeItem();
      const problem = engineProblem(current, engineMatch[1] as string);
      if (problem) problems.push({ line, message: problem });
      else if (current) current.engine = engineMatch[1] as TaskEngine;
      return;
    }
    if (COMMENT.test(trimmed)) return;
    const groupMatch = GROUP.exec(raw);
    if (groupMatch) {
      closeItem();
      const name = groupMatch[1] as string;
      const twin = groups.find((g) => g.name.toLowerCase() === name.toLowerCase());
      if (twin)
        problems.push({ line, message: `group "${name}" again (first on line ${twin.line}): merge them` });
      current = { name, line, tasks: [] };
      groups.push(current);
      return;
    }
    if (/^#\s/.test(raw) && groups.length === 0 && !seenTitle) {
      seenTitle = true;
      return;
    }
    if (/^#{1,6}\s/.test(raw)) {
      closeItem();
      problems.push({ line, message: 'only "## " headings name groups; use "## Name" or drop the heading' });
      return;
    }
    const itemMatch = ITEM.exec(raw);
    if (itemMatch) {
      closeItem();
      if (!current) {
        problems.push({ line, message: 'a task before any "## " group heading: put it under one' });
        return;
      }
      open = { line, parts: [itemMatch[1] as string] };
      return;
    }
    closeItem();
    const shown = trimmed.length > 60 ? `${trimmed.slice(0, 57)}...` : trimmed;
    problems.push({ line, message: `expected "## Group" or "- task", got "${shown}"` });
  });
  closeItem();

  const tasks = numberTasks(groups, problems);
  if (problems.length > 0) {
    throw new TaskFileError(
      file,
      problems.sort((a, b) => a.line - b.line),
    );
  }
  return { ...(boot ? { boot } : {}), groups, tasks };
}
