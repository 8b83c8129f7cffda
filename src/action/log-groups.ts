/**
 * Log groups per issue in the Actions log. A group cannot nest or interleave, and sessions run in
 * parallel, so one issue's group is open at a time and streams live; lines of other issues wait in
 * a buffer and are written as their own group once the open one closes. Lines that belong to no
 * issue (rounds, the run) are written where they fall.
 */
export interface GroupOutput {
  write(line: string): void;
  startGroup(name: string): void;
  endGroup(): void;
}

export interface LogGroups {
  /** A session started: its lines go to a group named after the issue. */
  begin(issue: number, title: string): void;
  line(issue: number | undefined, text: string): void;
  /** The session ended: `last` is written as the group's final line. */
  end(issue: number, last: string): void;
  /** Writes whatever still waits (at the end of the run). */
  close(): void;
}

export function createLogGroups(out: GroupOutput): LogGroups {
  let open: number | undefined;
  const titles = new Map<number, string>();
  /** Lines of issues whose group is not open yet, oldest issue first. */
  const waiting = new Map<number, string[]>();
  const finished = new Set<number>();

  function openGroup(issue: number): void {
    const title = titles.get(issue);
    out.startGroup(title ? `#${issue} ${title}` : `#${issue}`);
    open = issue;
    for (const line of waiting.get(issue) ?? []) out.write(line);
    waiting.delete(issue);
  }

  function hold(issue: number, line: string): void {
    const lines = waiting.get(issue);
    if (lines) lines.push(line);
    else waiting.set(issue, [line]);
  }

  /** Closes the open group. Its issue is forgotten: a line logged after its end is written where it falls. */
  function closeGroup(): void {
    out.endGroup();
    if (open !== undefined) titles.delete(open);
    open = undefined;
  }

  /** With no group open: write the finished issues that wait, then let the next running one stream. */
  function drain(): void {
    for (const issue of [...waiting.keys()]) {
      openGroup(issue);
      if (!finished.delete(issue)) return;
      closeGroup();
    }
  }

  return {
    begin(issue, title) {
      titles.set(issue, title);
      if (open === undefined) openGroup(issue);
      else if (open !== issue && !waiting.has(issue)) waiting.set(issue, []);
    },
    line(issue, text) {
      if (issue === undefined || issue === open || !titles.has(issue)) {
        out.write(text);
      } else if (open === undefined) {
        openGroup(issue);
        out.write(text);
      } else {
        hold(issue, text);
      }
    },
    end(issue, last) {
      if (open === issue) {
        out.write(last);
        closeGroup();
      } else {
        hold(issue, last);
        finished.add(issue);
      }
      if (open === undefined) drain();
    },
    close() {
      if (open !== undefined) closeGroup();
      for (const issue of [...waiting.keys()]) {
        openGroup(issue);
        closeGroup();
      }
      finished.clear();
      titles.clear();
    },
  };
}
