import { describe, expect, it } from 'vitest';
import { commandNotice, commandRunInput, STOP_CLAIMS_NOTHING } from '../../src/action/command-event.js';
import { decide } from '../../src/action/event.js';
import { commentPayload } from './action-fixture.js';

const comment = (body: string, onPull = false, sender = 'maintainer') =>
  decide(
    { name: 'issue_comment', payload: commentPayload({ number: 5, comment: 77, body, sender, onPull }) },
    'auto',
    'issueloop',
  );

describe('decide: issue_comment events', () => {
  it("a command on an issue is that issue's round, carrying the comment", () => {
    expect(comment('/issueloop retry')).toMatchObject({
      kind: 'issue',
      issue: 5,
      title: 'Greeting typo',
      actor: { login: 'maintainer', type: 'User' },
      command: { name: 'retry', onPull: false, comment: { id: 77, number: 5, author: 'maintainer' } },
    });
  });

  it("a command on a PR keeps the PR's number (its issue is read at run time) and no title", () => {
    expect(comment('/issueloop stop', true)).toMatchObject({
      kind: 'issue',
      issue: 5,
      title: '',
      command: { name: 'stop', onPull: true },
    });
  });

  it('any other comment, or an edited one, is a skip', () => {
    expect(comment('/issueloop retry')).toMatchObject({ kind: 'issue' });
    expect(comment('/issueloop retry please')).toEqual({
      kind: 'skip',
      why: 'the comment gives no command (/issueloop retry|stop|plan, /approve or /revise)',
    });
    const edited = {
      ...commentPayload({ number: 5, comment: 1, body: '/issueloop stop', sender: 'x' }),
      action: 'edited',
    };
    expect(decide({ name: 'issue_comment', payload: edited }, 'auto', 'issueloop')).toMatchObject({
      kind: 'skip',
      why: expect.stringContaining('only "created"'),
    });
  });
});

describe('command-event', () => {
  const commanded = (body: string) => {
    const decision = comment(body);
    if (decision.kind !== 'issue' || !decision.command) throw new Error(`expected a command: ${body}`);
    return { ...decision, command: decision.command };
  };
  const retry = commanded('/issueloop retry');
  const stop = commanded('/issueloop stop');

  it('stop claims nothing; retry claims as usual; both give the sweep the one comment', () => {
    expect(commandRunInput(stop.command)).toEqual({
      command: stop.command.comment,
      claimNothing: STOP_CLAIMS_NOTHING,
    });
    expect(commandRunInput(retry.command)).toEqual({ command: retry.command.comment });
  });

  it('a retry worked in the job adds no notice; one not worked says why', () => {
    const decision = retry;
    expect(commandNotice(decision, { reports: [{}] as never, skipped: [] })).toBeUndefined();
    expect(
      commandNotice(decision, { reports: [], skipped: [{ issue: 5, title: 't', why: 'leased by host:1' }] }),
    ).toBe(
      '#5: /issueloop retry from maintainer: back in the queue, not worked in this job: leased by host:1',
    );
  });
});
