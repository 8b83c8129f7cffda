import type { GitHubEmulator } from '../../src/emulators/github/index.js';
import {
  emptyTrackingRecord,
  renderTrackingComment,
  type TrackingRecord,
} from '../../src/github/tracking-comment.js';

/** What an earlier runner leaves in a tracking comment: `failures` failures of `errorClass`, a day apart. */
export function failureHistory(
  failures: number,
  lastOutcome: string,
  errorClass = 'no_changes',
): TrackingRecord {
  return {
    ...emptyTrackingRecord('2026-01-01T00:00:00Z'),
    attempts: Math.max(failures, 1),
    failure_count: failures,
    failure_reasons: Array.from({ length: failures }, (_, i) => ({
      at: `2026-01-${String(i + 1).padStart(2, '0')}T00:00:00Z`,
      error_class: errorClass,
      message: 'the agent changed nothing',
    })),
    last_outcome: lastOutcome,
  };
}

/**
 * Puts `record` on the issue as an earlier runner's tracking comment, written by a member, or by the
 * Actions bot (a Bot user, which also counts as trusted).
 */
export function addTrackingComment(
  emulator: GitHubEmulator,
  issue: number,
  record: TrackingRecord,
  by: 'member' | 'actions-bot' = 'member',
): void {
  const author =
    by === 'member'
      ? { author: 'octocat', authorAssociation: 'MEMBER' as const }
      : { author: 'github-actions[bot]', authorAssociation: 'NONE' as const };
  if (by === 'actions-bot') emulator.addUser(author.author, { type: 'Bot' });
  emulator.addComment(issue, {
    ...author,
    body: renderTrackingComment({ phase: 'failed', attempt: record.attempts, record }, (text) => text),
  });
}
