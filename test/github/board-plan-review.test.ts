import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { missingStatuses } from '../../src/github/board/resolve-project.js';
import { createTempStateDirs } from '../claims/temp-state-dirs.js';
import { BOARD_COLUMNS, boardEmulator, memberIssue } from '../helpers/world.js';
import { emulated } from './emulated.js';

const dirs = createTempStateDirs();
afterEach(() => dirs.cleanup());

async function boardWith(columns: string[]) {
  const world = boardEmulator({ columns });
  const e = await emulated(await dirs.make(), { emulator: world.emulator, config: world.config });
  world.emulator.addIssue(memberIssue('Fix it', { author: 'm', authorAssociation: 'OWNER' }));
  const [issue] = (await e.adapter.listBacklog()).issues;
  if (!issue || !e.adapter.board) throw new Error('setup');
  return { board: e.adapter.board, issue, statusOf: world.statusOf, config: world.config };
}

describe('the board’s Plan review column (project.statuses.plan_review)', () => {
  it('present: a plan waiting for review moves the item there', async () => {
    const { board, issue, statusOf } = await boardWith([...BOARD_COLUMNS, 'Plan review']);
    expect(await board.setStatus(issue, 'working')).toEqual({ ok: true });
    expect(await board.setStatus(issue, 'plan_review')).toEqual({ ok: true });
    expect(statusOf(issue.number)).toBe('Plan review');
  });

  it('absent: no move and no error, nothing left to retry, and not reported missing', async () => {
    const { board, issue, statusOf, config } = await boardWith([...BOARD_COLUMNS]);
    expect(await board.setStatus(issue, 'working')).toEqual({ ok: true });
    expect(await board.setStatus(issue, 'plan_review')).toEqual({ ok: true });
    expect(statusOf(issue.number)).toBe('In Progress');
    expect(board.pending()).toEqual({});
    const statuses = ConfigSchema.parse(config).project?.statuses;
    if (!statuses) throw new Error('setup');
    expect(statuses.plan_review).toBe('Plan review');
    expect(missingStatuses(await board.resolve(), statuses)).toEqual([]);
    expect(missingStatuses(await board.resolve(), { ...statuses, review: 'Gone' })).toEqual([
      { phase: 'review', name: 'Gone' },
    ]);
  });
});
