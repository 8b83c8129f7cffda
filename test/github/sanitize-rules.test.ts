import { describe, expect, it } from 'vitest';
import { sanitizeIssueText } from '../../src/github/sanitize.js';

/**
 * One rule of sanitize.ts at a time, at its edges: each case is what GitHub shows (or might hide),
 * and the name says what a wrong reading would let through to the model, or take from it.
 */
function check(cases: Record<string, [string, string]>): void {
  for (const [bug, [issue, shown]] of Object.entries(cases)) {
    it(bug, () => {
      expect(sanitizeIssueText(issue).text).toBe(shown);
    });
  }
}

describe('hidden attributes of raw HTML', () => {
  check({
    'an alt after a tab, a form feed or a carriage return is still an attribute': [
      '<img\talt="x" src=y> <img\falt="x" src=y> <img\ralt="x" src=y>',
      '<img src=y> <img\f src=y> <img\r src=y>',
    ],
    'text after a tag’s > is text, not an attribute of it': [
      '<b>bold</b> alt="shown" text',
      '<b>bold</b> alt="shown" text',
    ],
    'an attribute name cut off by the end of the text goes': ['<img alt', '<img'],
    'attributes without a value go: alt and title, bare': ['<img alt title src=x>', '<img src=x>'],
    'an empty value takes the next word as the value': ['<img alt= src=x>', '<img>'],
    'an alt whose value is empty, or cut off by > or the end, goes': ['<img alt=> <img alt=', '<img> <img'],
    'an unquoted value runs to the end of the text when nothing ends it': ['<img alt=x', '<img'],
    'an unterminated quoted value hides the rest of the text': ['<img alt="never closed', '<img'],
    'an unquoted value ends at >': ['<img src=x alt=y>z', '<img src=x>z'],
    'spaces around = and an upper-case name': ['<img ALT = "x" >', '<img >'],
    'the attributes of an end tag are hidden too': ['</b title="x">', '</b>'],
    'a one-letter tag name': ['<b title=x>y</b> <a b title="x">', '<b>y</b> <a b>'],
    'text without a < has no attributes (alt=x in prose stays)': ['Hi alt=x is fine', 'Hi alt=x is fine'],
    'a < that opens no tag (space, digit, non-ASCII letter) leaves what follows alone': [
      'a < b title="c"> <1 alt="x"> <é alt="x">',
      'a < b title="c"> <1 alt="x"> <é alt="x">',
    ],
    'a tag named like a hidden attribute is a tag, not an attribute': [
      '<title>x</title> <alt>y</alt>',
      '<title>x</title> <alt>y</alt>',
    ],
  });
});

describe('what an HTML parser turns into comments', () => {
  check({
    'a ? or ! right after the first character of the text is no comment without a <': [
      'A? yes> see! <b>x</b>',
      'A? yes> see! <b>x</b>',
    ],
    '</ and a non-letter is a bogus comment up to the next >': ['a </3 hidden> b', 'a  b'],
    '</ and a space is a bogus comment to the end when no > follows': ['a </ b', 'a '],
    '</> is no comment: what follows it stays': ['a</>b', 'a</>b'],
    'an ordinary end tag is no comment': ['</b>x', '</b>x'],
  });
});

describe('link titles', () => {
  check({
    'a title after a tab': ['[a](u\t"t")', '[a](u)'],
    'a title after a line break, before the closing parenthesis too': [
      '[a](u\n"t") [b](u "t"\n) [c](u "t" )',
      '[a](u\n) [b](u\n) [c](u )',
    ],
    'no title without whitespace after the destination: the quotes are shown': ['[a](<u>"t")', '[a](<u>"t")'],
    'a quote outside any link is shown': ['Go to x "y") now', 'Go to x "y") now'],
    'a title followed by more than the closing parenthesis is no title': ['[a](u "t" x)', '[a](u "t" x)'],
    'after a link that already closed, quotes are text': ['[a](u) "t")', '[a](u) "t")'],
    'an escaped parenthesis and balanced ones stay in the destination': [
      '[a](u\\) "t") [b](u(v) "t")',
      '[a](u\\)) [b](u(v))',
    ],
    'a control character ends the destination: no link, the quotes are shown': [
      '[a](u\u007f "t")',
      '[a](u\u007f "t")',
    ],
    'an angle-bracket destination with an escaped > inside still has a title': [
      '[a](<u\\>> "t") [b](<u> "t")',
      '[a](<u\\>>) [b](<u>)',
    ],
    'an angle-bracket destination cannot span lines: no link': ['[a](<u\nv> "t")', '[a](<u\nv> "t")'],
    'an escaped quote does not end the title': ['[a](u "t\\"x") [b](u \'t\\\'s\')', '[a](u) [b](u)'],
    'a parenthesised title cannot hold another (': ['[a](u (t(x)))', '[a](u (t(x)))'],
    'a destination after spaces': ['[a]( u "t")', '[a]( u)'],
  });

  it('gives up on destinations nested deeper than 64 parentheses, as cmark gives up before', () => {
    const nested = (depth: number) => `[a](${'('.repeat(depth)}${')'.repeat(depth)} "t")`;
    expect(sanitizeIssueText(nested(64)).text).toBe(nested(64).replace(' "t"', ''));
    expect(sanitizeIssueText(nested(65)).text).toBe(nested(65));
  });
});

describe('reference definitions', () => {
  check({
    'a label of two characters (any length) is found': [
      '[ab]: https://e.com "hidden"',
      '[ab]: https://e.com',
    ],
    'an escaped ] inside the label does not end it': [
      '[a\\]b]: https://e.com "hidden"',
      '[a\\]b]: https://e.com',
    ],
    'an escaped backslash before ] does end it': ['[a\\\\]: u "t"', '[a\\\\]: u'],
    'a title that ends its line before CRLF, or the text': [
      '[r]: https://e.com "t"\r\nmore\n[s]: u "t"',
      '[r]: https://e.com\r\nmore\n[s]: u',
    ],
    'a title with more after it on the line is no title': [
      '[r]: https://e.com "t" trailing',
      '[r]: https://e.com "t" trailing',
    ],
    'a quoted destination is a destination, not a title': ['[a]: "t"', '[a]: "t"'],
    'no space needed after the colon': ['[a]:u "t"', '[a]:u'],
    'quotes on lines that are no definitions are shown': [
      'x "quoted"\nnext "line"',
      'x "quoted"\nnext "line"',
    ],
  });
});

describe('image alt text', () => {
  check({
    'brackets after ! are no image without a definition or a destination': [
      'see ![not an image] here ![not] (x)',
      'see ![not an image] here ![not] (x)',
    ],
    'a reference image goes even without the definition in the text': ['![hidden][r]', '![][r]'],
    'an escaped ! makes a link, whose text is shown': ['\\![x](u)', '\\![x](u)'],
    'two images in one block each lose their alt': ['![a](u) and ![b](v)', '![](u) and ![](v)'],
    'an image cannot span a blank line (also CRLF, also spaces and tabs on it)': [
      '![a\n\nb](u) ![a\r\n\r\nb](u) ![a\n \t\nb](u)',
      '![a\n\nb](u) ![a\r\n\r\nb](u) ![a\n \t\nb](u)',
    ],
    'an image can span a single line break': ['![a\nb](u)', '![](u)'],
    'an image in a later block': ['x\n\n![a](u)', 'x\n\n![](u)'],
    'raw HTML in the alt may hide brackets: the furthest closer is taken': [
      '![a <b>]</b> c](u) ]',
      '![](u) ]',
    ],
    'a code span after the image does not extend its alt': ['![a](u) `x` ]', '![](u) `x` ]'],
    'a code span before the image does not make it reach a later link': [
      '`x` ![a](u) and [b](v)',
      '`x` ![](u) and [b](v)',
    ],
    'a code span before the image does not hide the one inside its alt': [
      '`x` ![a `]` hidden](u) c',
      '`x` ![](u) c',
    ],
    'a code span after the image does not make it reach a later link': [
      '![a](u) `x` and [b](v)',
      '![](u) `x` and [b](v)',
    ],
    'raw HTML inside the alt: its own closer may not be the one GitHub finds, the furthest goes': [
      '![a <b> c](u) d](v)',
      '![](v)',
    ],
    'links around an image keep their text': ['[a][b] ![c](d) [e]', '[a][b] ![](d) [e]'],
    'a shortcut image resolved by a definition, with the definition’s title': [
      'x ![a] y\n\n[a]: u "t"',
      'x ![] y\n\n[a]: u',
    ],
  });
});
