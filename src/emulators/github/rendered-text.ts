/**
 * What GitHub's reference and mention filters read of a Markdown text: they run on the rendered
 * text, not on the raw characters, so `closes &#35;3`, `closes \#2` and `**closes** #3` all close
 * issue 3 there. A tokeniser of the inline syntax that matters (backslash escapes, character
 * references, emphasis, code spans, link brackets, HTML tags), written apart from issueloop's own
 * neutraliser so that the emulator judges it rather than agrees with it. Full-width forms (`＃`) are
 * folded to ASCII: whether github.com honours them or not, the emulator assumes it does.
 */

export interface RenderedText {
  /** The text nodes joined, as a keyword and the reference after it are read across emphasis. */
  text: string;
  /** The text nodes apart: a mention is read at the start of each. */
  nodes: string[];
}

const DECIMAL = /^&#(\d{1,7});/;
const HEX = /^&#[xX]([0-9a-fA-F]{1,6});/;
const NAMED = /^&([A-Za-z]+);/;
const NAMED_CHARS: Readonly<Record<string, string>> = {
  num: '#',
  commat: '@',
  colon: ':',
  sol: '/',
  period: '.',
  amp: '&',
  nbsp: '\u00a0',
  Tab: '\t',
  NewLine: '\n',
  lowbar: '_',
};
const HTML_TAG = /^<\/?[A-Za-z][^<>]*>/;

/** An inline link's `](destination "title")`, and a reference link's `][label]`. */
const INLINE_TAIL =
  /^\]\((?:<[^<>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?\s*\)/;
const REFERENCE_TAIL = /^\]\[([^[\]\n]*)\]/;

export interface RenderOptions {
  /**
   * Read links as GitHub shows them: an inline link's destination and title, and the label of a
   * reference link whose definition the text holds, are not text. Off by default, where a
   * destination is read as text too (a closing reference or a mention in one still counts).
   */
  links?: boolean;
}

export function renderedText(markdown: string, options: RenderOptions = {}): RenderedText {
  const nodes: string[] = [];
  let node = '';
  const split = () => {
    if (node !== '') nodes.push(node);
    node = '';
  };
  for (let i = 0; i < markdown.length; ) {
    const rest = markdown.slice(i, i + 64);
    const c = rest[0] ?? '';
    const reference = DECIMAL.exec(rest) ?? HEX.exec(rest);
    const named = NAMED.exec(rest);
    const tag = HTML_TAG.exec(rest);
    if (c === '\\' && /^[!-/:-@[-`{-~]$/.test(rest[1] ?? '')) {
      node += rest[1];
      i += 2;
    } else if (reference) {
      const code = Number.parseInt(
        reference[1] ?? '',
        reference[0][2] === 'x' || reference[0][2] === 'X' ? 16 : 10,
      );
      node += fold(code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd');
      i += reference[0].length;
    } else if (named && NAMED_CHARS[named[1] ?? ''] !== undefined) {
      node += NAMED_CHARS[named[1] ?? ''];
      i += named[0].length;
    } else if (c === '`') {
      // A code span is not read: from a run of backticks to the next run of the same length, within
      // the paragraph (a blank line ends it, and an unclosed run is literal text).
      const run = /^`+/.exec(markdown.slice(i))?.[0].length ?? 1;
      const close = codeSpanEnd(markdown, i + run, run);
      split();
      i = close ?? i + run;
    } else if (tag) {
      split();
      i += tag[0].length;
    } else if (c === ']' && options.links && linkTail(markdown, i) > 0) {
      split();
      i += linkTail(markdown, i);
    } else if ('*_~[]'.includes(c)) {
      split();
      i += 1;
    } else {
      node += fold(c);
      i += 1;
    }
  }
  split();
  return { text: nodes.join(''), nodes };
}

/** How long the link tail at `at` (a `]`) is that GitHub does not show, or 0. */
function linkTail(markdown: string, at: number): number {
  const rest = markdown.slice(at, at + 4096);
  const inline = INLINE_TAIL.exec(rest);
  if (inline) return inline[0].length;
  const reference = REFERENCE_TAIL.exec(rest);
  if (!reference) return 0;
  const label = (reference[1] ?? '').trim().toLowerCase();
  const defined = markdown
    .split('\n')
    .some((line) => /^ {0,3}\[([^[\]\n]+)\]:/.exec(line)?.[1]?.trim().toLowerCase() === label);
  return label === '' || defined ? reference[0].length : 0;
}

/** Where a code span whose opening run of `run` backticks ends at `from` closes (after its closing run), if it does. */
function codeSpanEnd(markdown: string, from: number, run: number): number | undefined {
  const blankLine = /\n[ \t]*\r?\n/g;
  blankLine.lastIndex = from;
  const paragraphEnd = blankLine.exec(markdown)?.index ?? markdown.length;
  const runs = /`+/g;
  runs.lastIndex = from;
  for (
    let found = runs.exec(markdown);
    found !== null && found.index < paragraphEnd;
    found = runs.exec(markdown)
  ) {
    if (found[0].length === run) return found.index + run;
  }
  return undefined;
}

function fold(char: string): string {
  const plain = char.normalize('NFKC');
  return plain.length === 1 && plain < '\u0080' ? plain : char;
}

/** GitHub's closing keywords and the references after them: `#N`, `owner/repo#N`, an issue URL. */
const CLOSING =
  /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+(?:(?:([\w.-]+)\/([\w.-]+))?#(\d+)\b|https?:\/\/[^\s/]+\/([\w.-]+)\/([\w.-]+)\/issues\/(\d+)\b)/gi;

/** The issues a text closes, as `{ owner, repo, number }` (owner and repo undefined for `#N`). */
export function closingReferences(
  markdown: string,
): Array<{ owner: string | undefined; repo: string | undefined; number: number }> {
  const found = [];
  for (const match of renderedText(markdown).text.matchAll(CLOSING)) {
    const [, owner, repo, number, urlOwner, urlRepo, urlNumber] = match;
    found.push({ owner: owner ?? urlOwner, repo: repo ?? urlRepo, number: Number(number ?? urlNumber) });
  }
  return found;
}

/** The logins and teams a text mentions (`@user`, `@org/team`): at a text node's start or after a non-word character. */
export function liveMentions(markdown: string): string[] {
  const found: string[] = [];
  for (const node of renderedText(markdown).nodes) {
    for (const match of node.matchAll(
      /(?:^|[^A-Za-z0-9_])@([A-Za-z0-9][A-Za-z0-9-]*(?:\/[A-Za-z0-9][\w.-]*)?)/g,
    )) {
      found.push(match[1] ?? '');
    }
  }
  return found;
}
