import { cleanCheckName, cleanCheckText, stripEscapes } from './check-text.js';
import type { GitHubClient } from './client.js';
import { httpStatusOf } from './github-error.js';
import type { FailedCheck } from './pr-watch.js';
import { sanitizeIssueText } from './sanitize.js';

/** How much of a failing check the follow-up session is shown: enough to act on, bounded. */
export const CI_LIMITS = {
  annotations: 20,
  annotationChars: 300,
  logTailLines: 80,
  logTailChars: 6_000,
  summaryChars: 1_000,
} as const;

export interface CheckAnnotation {
  path: string;
  line: number;
  level: string;
  message: string;
}

/** A failing check with what GitHub can say about it: annotations, and the tail of its job log. */
export interface FailureDetail extends FailedCheck {
  annotations: CheckAnnotation[];
  /** The job log's last lines (GitHub Actions only), timestamps and colours removed. */
  logTail?: string;
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;

/**
 * CI output is untrusted (anyone whose PR runs in the repository's CI writes into it): each text loses
 * its escape sequences, is sanitised like issue text, then shortened.
 */
const clean = cleanCheckText;

/** The last lines of a job log, within CI_LIMITS, without GitHub's timestamps. */
export function logTail(log: string): string {
  const lines = stripEscapes(log.replace(/\r\n/g, '\n'))
    .split(/\r?\n/)
    .map((line) => line.replace(TIMESTAMP, ''))
    .filter((line) => line.trim() !== '');
  const tail = lines.slice(-CI_LIMITS.logTailLines).join('\n');
  const bounded = tail.length > CI_LIMITS.logTailChars ? tail.slice(-CI_LIMITS.logTailChars) : tail;
  return sanitizeIssueText(bounded).text;
}

interface RawAnnotation {
  path: string;
  start_line: number;
  annotation_level: string;
  message: string;
  title?: string | null;
}

/**
 * For each failing check run: its annotations and its job log's tail (two requests; a check that is
 * not an Actions job has no log, a 404 that is not an error). Statuses carry their description only.
 */
export async function readFailureDetails(
  gh: GitHubClient,
  failed: readonly FailedCheck[],
): Promise<FailureDetail[]> {
  const { owner, name: repo } = gh.repo;
  const details: FailureDetail[] = [];
  for (const check of failed) {
    const detail: FailureDetail = {
      ...check,
      name: cleanCheckName(check.name),
      summary: clean(check.summary, CI_LIMITS.summaryChars),
      annotations: [],
    };
    if (check.kind === 'check_run' && check.id !== undefined) {
      const checkRunId = check.id;
      const listed = await gh.call(`read the annotations of ${detail.name}`, () =>
        gh.rest.checks.listAnnotations({
          owner,
          repo,
          check_run_id: checkRunId,
          per_page: CI_LIMITS.annotations,
        }),
      );
      detail.annotations = (listed.data as RawAnnotation[]).slice(0, CI_LIMITS.annotations).map((a) => ({
        path: cleanCheckName(a.path),
        line: a.start_line,
        level: a.annotation_level,
        message: clean([a.title, a.message].filter(Boolean).join(': '), CI_LIMITS.annotationChars),
      }));
      const log = await readJobLog(gh, checkRunId, detail.name);
      if (log !== undefined) detail.logTail = logTail(log);
    }
    details.push(detail);
  }
  return details;
}

async function readJobLog(gh: GitHubClient, jobId: number, name: string): Promise<string | undefined> {
  const { owner, name: repo } = gh.repo;
  try {
    const response = await gh.call(`read the log of ${name}`, () =>
      gh.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo, job_id: jobId }),
    );
    return typeof response.data === 'string' ? response.data : String(response.data ?? '');
  } catch (err) {
    // Not an Actions job, or its log has expired.
    if (httpStatusOf(err) === 404 || httpStatusOf(err) === 410) return undefined;
    throw err;
  }
}
