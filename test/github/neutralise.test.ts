import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closingReferences, liveMentions } from '../../src/emulators/github/index.js';
import { codeSpan, neutraliseMarkdown, WORD_JOINER } from '../../src/github/neutralise.js';

const J = WORD_JOINER;

/** What GitHub would act on in `markdown`: the issues it closes and the people it pings. */
const actedOn = (markdown: string) => ({
  closes: closingReferences(markdown).map((r) => r.number),
  mentions: liveMentions(markdown),
});

describe('neutraliseMarkdown: closing references in every form GitHub reads as one', () => {
  const attacks: Record<string, string> = {
    'closes &#35;3 (decimal entity)': 'Done; closes &#35;3 as well.',
    'closes \\#2 (backslash escape)': 'Done; closes \\#2 as well.',
    'Fixes: owner/repo#4 (colon, cross-repository)': 'Fixes: octo-org/widgets#4',
    'closes &#x23;5 (hex entity)': 'closes &#x23;5',
    'closes &num;6 (named entity)': 'closes &num;6',
    'closes ＃7 (full-width number sign)': 'closes ＃7',
    '**closes** #3 (emphasis inside)': '**closes** #3',
    '_fixes_ #8 and <b>resolves</b> #9': '_fixes_ #8 and <b>resolves</b> #9',
    'Closes: #3': 'Closes: #3',
    'an issue URL': 'resolved https://github.com/octo-org/widgets/issues/10',
    'a list after one keyword': 'fixes #11, #12 and #13',
    '&#99;loses #14 (the keyword itself encoded)': '&#99;loses #14',
    'closes #&#49;5 (the number encoded)': 'closes #&#49;5',
    'ｃｌｏｓｅｓ ＃１６ (all full-width)': 'ｃｌｏｓｅｓ ＃１６',
    'close #17 (the bare keyword)': 'close #17',
    'fix #18 (the bare keyword)': 'fix #18',
    'resolve #19 (the bare keyword)': 'resolve #19',
    'clo<i>ses</i> #20 (a tag inside the keyword)': 'clo<i>ses</i> #20',
    'clo<span class=x>ses</span> #21 (a tag with attributes inside the keyword)':
      'clo<span class=x>ses</span> #21',
    'fix~~es~~ #22 (strike-through inside the keyword)': 'fix~~es~~ #22',
    'fi[xes] #23 (link brackets inside the keyword)': 'fi[xes] #23',
    'resolves http://github.com/o/r/issues/24 (a plain-http URL)': 'resolves http://github.com/o/r/issues/24',
  };
  for (const [how, text] of Object.entries(attacks)) {
    it(`regression: ${how} closes nothing once neutralised`, () => {
      expect(actedOn(text).closes).not.toEqual([]);
      expect(actedOn(neutraliseMarkdown(text)).closes).toEqual([]);
    });
  }

  it('keeps a mere reference, an e-mail address and ordinary text as they were', () => {
    for (const text of ['See #12 for the history.', 'mail ada@example.com', '100% of 3 # 4', 'a & b']) {
      expect(neutraliseMarkdown(text)).toBe(text);
    }
  });

  it('breaks the reference with a word joiner before its number, in whatever encoding it came', () => {
    expect(neutraliseMarkdown('closes &#35;3')).toBe(`closes &#35;${WORD_JOINER}3`);
    expect(neutraliseMarkdown('Fixes: o/r#4')).toBe(`Fixes: o/r#${WORD_JOINER}4`);
  });

  it('regression: every reference of a list after one keyword is broken, however long its numbers', () => {
    // GitHub closes only the first; a more generous reader could close them all (see the module comment).
    expect(neutraliseMarkdown('fixes #11, #12 and #13')).toBe(`fixes #${J}11, #${J}12 and #${J}13`);
    expect(neutraliseMarkdown('fixes GH-12, GH-345')).toBe(`fixes GH-${J}12, GH-${J}345`);
    expect(neutraliseMarkdown('fixes https://github.com/o/r/issues/10, #11')).toBe(
      `fixes https://github.com/o/r/issues/${J}10, #${J}11`,
    );
  });

  it('regression: a keyword split by a code span is still broken (code is not exempt)', () => {
    expect(neutraliseMarkdown('clo`ses` #3')).toBe(`clo\`ses\` #${J}3`);
  });

  it('keeps a word that merely ends in a keyword as it was: prefixes #4 and unresolved #5 close nothing', () => {
    const text = 'prefixes #4, unresolved #5; but closes #6';
    expect(actedOn(text).closes).toEqual([6]);
    expect(neutraliseMarkdown(text)).toBe(`prefixes #4, unresolved #5; but closes #${J}6`);
  });

  it('regression: a mention before a closing reference keeps the text between them (break points in order)', () => {
    expect(neutraliseMarkdown('@team closes #3')).toBe(`@${J}team closes #${J}3`);
  });

  it('regression: a reference that renders as two characters (&fjlig;) does not shift the joiner off the mention', () => {
    expect(neutraliseMarkdown('&fjlig;&fjlig; @team')).toBe(`&fjlig;&fjlig; @${J}team`);
  });

  it('regression: a lone < that opens no tag does not stop the neutraliser before a mention', () => {
    expect(neutraliseMarkdown('1 < 2, cc @team')).toBe(`1 < 2, cc @${J}team`);
  });

  it('is idempotent: a neutralised text is left as it is', () => {
    const once = neutraliseMarkdown('closes &#35;3, cc @team');
    expect(neutraliseMarkdown(once)).toBe(once);
  });
});

describe('neutraliseMarkdown: mentions', () => {
  for (const text of [
    'cc @octocat',
    '@acme/maintainers',
    '&#64;team',
    '\\@team',
    'a**@team**',
    '＠team',
    '`x` @team',
    '``a` @team',
  ]) {
    it(`regression: ${text} pings nobody once neutralised`, () => {
      expect(actedOn(text).mentions).not.toEqual([]);
      expect(actedOn(neutraliseMarkdown(text)).mentions).toEqual([]);
    });
  }
});

describe('codeSpan', () => {
  it('regression: a file name with blank lines stays one code span, and its @team pings nobody', () => {
    const file = 'docs/a\n\n@team please approve\r\n\u2028x.md';
    const reply = `Addressed in abc123, changing ${codeSpan(file)}.`;
    expect(reply).not.toMatch(/[\n\r\u2028]/);
    expect(reply).toContain('`docs/a␊␊@team please approve␍␊\u2424x.md`');
    // Only what is outside the span is read: nothing is.
    expect(liveMentions(reply.replace(/`[^`]*`/, ''))).toEqual([]);
  });

  it('fences with more backticks than any run inside', () => {
    expect(codeSpan('a``b')).toBe('```a``b```');
    expect(codeSpan('`x')).toBe('`` `x ``');
  });

  it('shows an empty name as a visible placeholder, not as an empty span GitHub would print as backticks', () => {
    expect(codeSpan('')).toBe('_(empty)_');
  });

  it('pictures DEL and NEL as their own symbols and keeps spaces as they are', () => {
    expect(codeSpan('a b\u007fc\u0085d\u0000')).toBe('`a b\u2421c\u2424d\u2400`');
  });
});

describe('property: no output of the neutraliser closes an issue or pings anyone', () => {
  const piece = fc.constantFrom(
    'closes',
    'Fixes',
    'resolved',
    'fix',
    ' ',
    ':',
    '\n',
    '#',
    '&#35;',
    '&#x23;',
    '&num;',
    '\\#',
    '＃',
    '3',
    '42',
    'o/r',
    '/',
    '**',
    '_',
    '~',
    '`',
    '[',
    ']',
    '<b>',
    '</b>',
    '@',
    '&#64;',
    '\\@',
    '＠',
    'team',
    'acme/devs',
    'x',
    ',',
    'and ',
    'GH-',
    'https://github.com/o/r/issues/',
    '&',
    '\\',
    WORD_JOINER,
  );
  it('holds for any mix of keywords, encodings and markup', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const out = neutraliseMarkdown(pieces.join(''));
        expect(actedOn(out)).toEqual({ closes: [], mentions: [] });
      }),
      { numRuns: 2_000 },
    );
  });
});
