import { describe, expect, it } from 'vitest';
import { parseBlockedByLines, refText } from '../../src/github/blocked-by-lines.js';

const HOME = { owner: 'octo-org', name: 'widgets' };
const refs = (body: string) => parseBlockedByLines(body, HOME).map((ref) => refText(ref, HOME));

describe('Blocked by lines in an issue body', () => {
  it('reads each spelling, one marker a line, in the order written and each blocker once', () => {
    const body = [
      'Add the export button.',
      'Blocked by #3',
      'blocked by: #4, #5',
      '- **Depends on:** octo-org/api#6 and #7.',
      'Depends on #3',
    ].join('\n');
    expect(refs(body)).toEqual(['#3', '#4', '#5', 'octo-org/api#6', '#7']);
  });

  it('review32: a fence is closed only by the same character, at least as long, so code inside stays code', () => {
    const body = [
      '~~~markdown',
      '```',
      'Blocked by #3',
      '~~~~',
      '````md',
      '```js',
      'Depends on #4',
      '````',
      'Blocked by #5',
    ].join('\n');
    // #3 is inside the ~~~ fence (``` does not close it), #4 inside the ```` one; #5 is after both.
    expect(refs(body)).toEqual(['#5']);
  });

  it('names this repository’s issues #N whatever case its owner/name is written in', () => {
    expect(refs('Blocked by Octo-Org/Widgets#9')).toEqual(['#9']);
  });

  it('ignores prose, a keyword mid-line, fenced code and text hidden from the rendered issue', () => {
    const body = [
      'Depends on how #3 goes',
      'This is blocked by #4',
      '```',
      'Blocked by #5',
      '```',
      '<!-- Blocked by #6 -->',
      'Blocked by #0',
      'Blocked by #8',
    ].join('\n');
    // The one marker line that stands: the others name nothing.
    expect(refs(body)).toEqual(['#8']);
  });
});
