import { describe, expect, it } from 'vitest';
import { cleanBlocked, describeBlocked, safeDestination } from '../../src/core/destination-text.js';
import { renderBlockedSection } from '../../src/github/blocked-requests-text.js';
import { renderPullRequestBody } from '../../src/github/pr-body.js';
import { emptyTrackingRecord, renderTrackingComment } from '../../src/github/tracking-comment.js';

const HOSTILE = [
  'a`b:443',
  '@octo-org/team:443',
  '<!--:443',
  'evil.example:443\n\n## Injected',
  '\u202eevil.example:443',
  '\u001b[2J\u001b]0;title\u0007:443',
  'closes #3:443',
  '&#35;3 <img src=x>:443',
];
const hostile = HOSTILE.map((destination) => ({ role: 'commands', destination, count: 1 }));
const identity = (text: string) => text;

/** Nothing of HOSTILE left that GitHub would act on or a terminal would obey. */
function expectClean(text: string) {
  expect(text).not.toMatch(/@octo-org|<!--:|## Injected|closes #3|<img/);
  for (const c of ['\u202e', '\u001b']) expect(text).not.toContain(c);
}

/** Only characters of host names, ports and the escapes themselves. */
const SHOWN = /^[A-Za-z0-9._:[\]\\{}-]*$/;

describe('refused destinations as shown', () => {
  it('leaves real destinations as they are', () => {
    for (const d of ['registry.npmjs.org:443', '[::1]:6379', '10.0.0.1:80', 'xn--bcher-kva.example:443'])
      expect(safeDestination(d)).toBe(d);
  });

  it('writes every other character as \\u{…}: no backtick, mention, HTML, line break, bidi or escape survives', () => {
    for (const d of HOSTILE) expect(safeDestination(d)).toMatch(SHOWN);
    expect(safeDestination('a`b\n@c')).toBe('a\\u{60}b\\u{a}\\u{40}c');
  });

  it('is shown unchanged the second time, and capped', () => {
    for (const d of [...HOSTILE, 'x'.repeat(500), '\n'.repeat(100)]) {
      const once = safeDestination(d);
      expect(safeDestination(once)).toBe(once);
      expect(once.length).toBeLessThanOrEqual(203);
    }
    expect(safeDestination('\n'.repeat(100))).toMatch(/(\\u\{a\})+\.\.\.$/);
  });

  it('redacts before cleaning, and names an unknown role as unknown', () => {
    expect(
      cleanBlocked([{ destination: 'sekrit.evil:443' }], (t) => t.replace('sekrit', '[REDACTED]')),
    ).toEqual([{ destination: '[REDACTED].evil:443' }]);
    expect(describeBlocked({ role: '<b>', destination: 'a:1', count: Number.NaN })).toBe('a:1 ×? (unknown)');
  });

  it('the PR body section and the tracking comment hold raw hostile text by themselves', () => {
    const section = renderBlockedSection(hostile, identity);
    expect(section).toHaveLength(4 + HOSTILE.length + 1);
    for (const line of section.slice(4, -1))
      expect(line).toMatch(/^- `[A-Za-z0-9._:[\]\\{}-]+` ×1 \(commands\)$/);

    const body = renderPullRequestBody(
      {
        issue: { number: 1, title: 't' },
        summary: 's',
        filesChanged: [],
        costUsd: 0,
        blockedRequests: hostile,
      },
      identity,
    );
    expect(body).toContain('## Blocked network requests');
    expectClean(body);

    const comment = renderTrackingComment(
      {
        phase: 'failed',
        attempt: 1,
        record: emptyTrackingRecord('2026-11-26T00:00:00.000Z'),
        blockedRequests: hostile,
      },
      identity,
    );
    const rows = comment.split('\n').filter((line) => line.startsWith('| '));
    expect(rows.at(-1)).toMatch(/^\| Blocked network requests \| `a\\u\{60\}b:443` ×1 \(commands\), /);
    expectClean(comment);
  });

  it('lists ten destinations at most, then counts the rest', () => {
    const many = Array.from({ length: 13 }, (_, i) => ({
      role: 'setup',
      destination: `h${i}.example:443`,
      count: 1,
    }));
    const section = renderBlockedSection(many, identity);
    expect(section.filter((line) => line.startsWith('- `'))).toHaveLength(10);
    expect(section).toContain('- … and 3 more');
  });

  it('says how many refusals went to destinations the session’s tally could not list (a flood past its cap)', () => {
    const listed = [{ role: 'commands', destination: 'exfil.attacker.invalid:443', count: 1 }];
    const section = renderBlockedSection(listed, identity, 299);
    expect(section).toContain('- `exfil.attacker.invalid:443` ×1 (commands)');
    expect(section).toContain('- … and 299 more refused requests to destinations not listed');
    expect(renderBlockedSection(listed, identity)).not.toContain(
      '- … and 0 more refused requests to destinations not listed',
    );
    const body = renderPullRequestBody(
      {
        issue: { number: 1, title: 't' },
        summary: 's',
        filesChanged: [],
        costUsd: 0,
        blockedRequests: listed,
        blockedOthers: 299,
      },
      identity,
    );
    expect(body).toContain('- … and 299 more refused requests to destinations not listed');
    const comment = renderTrackingComment(
      {
        phase: 'failed',
        attempt: 1,
        record: emptyTrackingRecord('2026-11-26T00:00:00.000Z'),
        blockedRequests: listed,
        blockedOthers: 299,
      },
      identity,
    );
    expect(comment).toContain('×1 (commands), … and 299 more refused requests to destinations not listed; ');
  });
});
