import type { Config } from '../../config/schema.js';
import { EXIT, type ExitCode } from '../../run/exit-codes.js';

/** What `issueloop doctor` found: one line per check, and the exit code it means. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
  /** Failed configuration (exit 2) rather than a failed environment (exit 1). */
  config?: boolean;
}

export interface DoctorReport {
  version: string;
  ok: boolean;
  checks: Check[];
  /** The effective settings after defaults < file < env < flags (durations in ms), when valid. */
  config?: Config;
}

export function doctorExitCode(report: DoctorReport): ExitCode {
  if (report.checks.some((c) => c.status === 'fail' && c.config)) return EXIT.usage;
  return report.ok ? EXIT.ok : EXIT.failure;
}

export function renderDoctor(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((c) => c.name.length));
  const lines = [`issueloop ${report.version} doctor`];
  for (const check of report.checks) {
    const [first = '', ...rest] = check.detail.split('\n');
    lines.push(`  ${check.status.padEnd(4)}  ${check.name.padEnd(width)}  ${first}`);
    for (const line of rest) lines.push(`        ${' '.repeat(width)}  ${line}`);
    if (check.fix && check.status !== 'ok') lines.push(`        ${' '.repeat(width)}  fix: ${check.fix}`);
  }
  const warnings = report.checks.filter((c) => c.status === 'warn').length;
  const failures = report.checks.filter((c) => c.status === 'fail').length;
  lines.push(
    `${warnings} ${warnings === 1 ? 'warning' : 'warnings'}, ${failures} ${failures === 1 ? 'failure' : 'failures'}`,
  );
  return `${lines.join('\n')}\n`;
}
