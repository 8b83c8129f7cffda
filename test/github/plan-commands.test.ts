import { describe, expect, it } from 'vitest';
import { parseCommand, reviseRequest } from '../../src/github/comment-commands.js';
import { isPlanComment, planMarker, planText, renderPlanComment } from '../../src/github/plan-comment.js';
import { planThread } from '../../src/github/plan-comments.js';

const redact = Object.assign((text: string) => text.replaceAll('sekrit', '[REDACTED]'), {}) as never;

describe('plan commands in comments: /issueloop plan, /approve, /revise', () => {
  it('reads them on the first non-blank line, in any case', () => {
    expect(parseCommand('/issueloop plan')).toBe('plan');
    expect(parseCommand('\n/Approve  \nthanks')).toBe('approve');
    expect(parseCommand('/revise add a test')).toBe('revise');
    expect(parseCommand('/revise')).toBe('revise');
    expect(parseCommand('/issueloop retry')).toBe('retry');
  });

  it('inside a code block or a quote, further down, or with more on the line, they are no command', () => {
    expect(parseCommand('```\n/approve\n```')).toBeUndefined();
    expect(parseCommand('> /approve')).toBeUndefined();
    expect(parseCommand('looks good\n/approve')).toBeUndefined();
    expect(parseCommand('/approve please')).toBeUndefined();
    expect(parseCommand('/approved')).toBeUndefined();
    expect(parseCommand('/revised plan')).toBeUndefined();
    expect(parseCommand('  /approve')).toBeUndefined();
    expect(parseCommand('/issueloop plan now')).toBeUndefined();
  });

  it('a /revise request: the rest of its line and the lines after; empty without text', () => {
    expect(reviseRequest('/revise add a test')).toBe('add a test');
    expect(reviseRequest('/revise add a test\nand keep the API')).toBe('add a test\nand keep the API');
    expect(reviseRequest('/revise')).toBe('');
    expect(reviseRequest('/approve')).toBeUndefined();
  });
});

describe('the plan comment', () => {
  it('holds the plan redacted and neutralised, says how to answer, and gives the plan back', () => {
    const body = renderPlanComment({
      issue: 7,
      plan: 'Change greet.js; closes #3, cc @team; token sekrit <!-- hide -->',
      expiresMs: 14 * 24 * 3_600_000,
      redact,
    });
    expect(body.startsWith(planMarker(7))).toBe(true);
    expect(isPlanComment(body, 7)).toBe(true);
    expect(isPlanComment(body, 8)).toBe(false);
    expect(body).toContain('`/approve`');
    expect(body).toContain('`/revise <what to change>`');
    expect(body).toContain('withdrawn after 14 days');
    const plan = planText(body);
    expect(plan).toContain('Change greet.js');
    expect(plan).toContain('[REDACTED]');
    expect(plan).not.toContain('sekrit');
    expect(plan).not.toContain('#3');
    expect(plan).not.toContain('@team');
    expect(plan).not.toContain('<!-- hide');
  });

  it('only issueloop’s own comment is a plan, the newest one; the comments after it follow', () => {
    const plan = (id: number, author: string, text: string) => ({
      id,
      author,
      createdAt: '2026-01-01T00:00:00Z',
      body: renderPlanComment({ issue: 7, plan: text, expiresMs: 60_000, redact }),
    });
    const thread = planThread(
      [
        plan(1, 'issueloop-bot', 'first'),
        { id: 2, author: 'maintainer', body: '/revise more', createdAt: '' },
        plan(3, 'issueloop-bot', 'second'),
        plan(4, 'drive-by', 'fake'),
        { id: 5, author: 'maintainer', body: '/approve', createdAt: '' },
      ],
      7,
      'issueloop-bot',
    );
    expect(thread.plan?.id).toBe(3);
    expect(thread.plan?.text).toBe('second');
    expect(thread.after.map((c) => c.id)).toEqual([4, 5]);
    expect(planThread([plan(4, 'drive-by', 'fake')], 7, 'issueloop-bot')).toEqual({ after: [] });
  });
});
