import type { Redactor } from '../core/redact.js';
import type { ActionCore, ActionIo } from './action-io.js';
import { OUTPUT_NAMES } from './inputs.js';
import { writeOutcomes } from './outcome-summary.js';
import {
  type ActionReport,
  actionOutputs,
  failureAnnotations,
  type SummaryWriter,
  writeJobSummary,
} from './report.js';

function setOutputs(core: ActionCore, report: ActionReport, noWork?: 'skipped' | 'refused'): void {
  const outputs = actionOutputs(report, noWork);
  for (const name of OUTPUT_NAMES) core.setOutput(name, outputs[name]);
}

/** Outputs, annotations and the job summary, every text redacted again on its way out. */
export async function finish(
  io: ActionIo,
  report: ActionReport,
  redact: Redactor,
  noWork?: 'skipped' | 'refused',
): Promise<void> {
  const { core } = io;
  setOutputs(core, report, noWork);
  for (const { title, message } of failureAnnotations(report)) core.error(redact(message), { title });
  // Everything in the summary is redacted again: a token must not reach it even through a title.
  const summary = core.summary;
  const redacting: SummaryWriter = {
    addHeading(text, level) {
      summary.addHeading(redact(text), level);
      return redacting;
    },
    addRaw(text, eol) {
      summary.addRaw(redact(text), eol);
      return redacting;
    },
    addTable(rows) {
      const cell = (c: string | { data: string; header?: boolean }) =>
        typeof c === 'string' ? redact(c) : { ...c, data: redact(c.data) };
      summary.addTable(rows.map((row) => row.map(cell)));
      return redacting;
    },
  };
  writeJobSummary(redacting, report);
  if (report.outcomes) writeOutcomes(redacting, report.outcomes);
  if (io.env.GITHUB_STEP_SUMMARY) await summary.write();
}
