/**
 * Prompt-injection defence for issue text handed to an agent: removes what someone reading the
 * rendered issue on github.com cannot see but a model reading the raw Markdown would (HTML comments
 * and what an HTML parser turns into comments, invisible, bidi and tag characters, image alt text,
 * link titles, alt/title/aria-label attributes) and keeps every other character as it was.
 *
 * Code is not exempt: telling code from prose as GitHub does takes a full CommonMark + GFM parser, and
 * each disagreement in the "that is code" direction would hand hidden text to the model, while removing
 * too much costs a detail such as a comment in a snippet. So every ambiguity below is settled one way:
 * when GitHub might hide it, it goes. Rules mark removals in one mask over the original text, so none
 * sees another's output, and a count grows only when a rule removed something new. Scans are linear.
 */

export type RemovedCounts = Record<
  'htmlComments' | 'invisibleCharacters' | 'imageAltTexts' | 'linkTitles' | 'htmlAttributes',
  number
>;

export type SanitizedIssueText = { text: string; removed: RemovedCounts };

type Char = string | undefined;

/** cmark-gfm gives up on link destinations nested deeper than 32 parentheses; twice that never stops short of it. */
const MAX_DESTINATION_PARENS = 64;
const HIDDEN_ATTRIBUTES: ReadonlySet<string> = new Set(['alt', 'title', 'aria-label']);
const CLOSERS: Readonly<Record<string, string>> = { '"': '"', "'": "'", '(': ')', '<': '>' };

/** Zero-width and invisible characters, bidi controls (they reorder what is shown), tag characters ("ASCII smuggling"). */
const INVISIBLE =
  /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;

const isSpaceOrTab = (c: Char): boolean => c === ' ' || c === '\t';
const isLineBreak = (c: Char): boolean => c === '\n' || c === '\r';
/** Markdown allows a line break between a link destination and its title, so line breaks count. */
const isWhitespace = (c: Char): boolean => isSpaceOrTab(c) || isLineBreak(c);
const isHtmlSpace = (c: Char): boolean => isWhitespace(c) || c === '\f';
const endsTagName = (c: Char): boolean => isHtmlSpace(c) || c === '/' || c === '>';
const isAsciiLetter = (c: Char): boolean => c !== undefined && /^[A-Za-z]$/.test(c);
const isAsciiPunctuation = (c: Char): boolean => c !== undefined && /^[!-/:-@[-`{-~]$/.test(c);

export function sanitizeIssueText(text: string): SanitizedIssueText {
  const mask = new Uint8Array(text.length);
  const htmlComments = removeComments(text, mask);
  const htmlAttributes = removeHiddenAttributes(text, mask);
  const { count: linkTitles, definitions } = removeLinkTitles(text, mask);
  // `![alt]` alone is an image only when a definition resolves it; with any definition around, assume it does.
  const imageAltTexts = removeAltTexts(text, mask, definitions);
  const { visible, invisibleCharacters } = keepVisible(text, mask);
  const removed = { htmlComments, invisibleCharacters, imageAltTexts, linkTitles, htmlAttributes };
  return { text: visible, removed };
}

/** Marks [start, end) for removal; true when it reached something no earlier rule had removed. */
function remove(mask: Uint8Array, start: number, end: number): boolean {
  let fresh = false;
  for (let i = start; i < end; i++) {
    fresh ||= mask[i] === 0;
    mask[i] = 1;
  }
  return fresh;
}

function removeComments(text: string, mask: Uint8Array): number {
  let count = 0;
  for (let at = text.indexOf('<'); at !== -1; ) {
    const end = commentEnd(text, at);
    if (end !== undefined && remove(mask, at, end)) count++;
    at = text.indexOf('<', end ?? at + 1);
  }
  return count;
}

/** Where a comment opened at `at` ends (unterminated: at the end of the text), or undefined when none opens. */
function commentEnd(text: string, at: number): number | undefined {
  const endAfter = (token: string, from: number): number => {
    const found = text.indexOf(token, from);
    return found === -1 ? text.length : found + token.length;
  };
  if (text.startsWith('<!--', at)) return endAfter('-->', at + 4);
  // Declarations, CDATA, processing instructions and `</` + non-letter are "bogus comments" to an
  // HTML parser: hidden up to the next `>`.
  const [next, after] = [text[at + 1], text[at + 2]];
  const bogusEndTag = next === '/' && after !== undefined && !isAsciiLetter(after) && after !== '>';
  return next === '!' || next === '?' || bogusEndTag ? endAfter('>', at + 2) : undefined;
}

// What tag scans did at each position. Scans start at every `<` + letter (cmark and HTML parsers disagree
// on where a malformed tag ends); one reaching a (position, state) an earlier scan passed stops: linear.
const [IN_TAG_NAME, BEFORE_ATTRIBUTE, AT_ATTRIBUTE, AT_VALUE, AT_HIDDEN_VALUE] = [1, 2, 4, 8, 16] as const;

/** Removes alt, title and aria-label attributes (name, value, and the spaces before) from raw HTML tags. */
function removeHiddenAttributes(text: string, mask: Uint8Array): number {
  const n = text.length;
  const seen = new Uint8Array(n + 1);
  const firstVisit = (at: number, state: number): boolean => {
    const states = seen[at] ?? 0;
    seen[at] = states | state;
    return (states & state) === 0;
  };
  let count = 0;
  const strip = (hidden: boolean, start: number, end: number): void => {
    if (hidden && remove(mask, start, end)) count++;
  };
  // Tokenises like an HTML parser: a tag runs to the first `>` outside quotes, or to the end.
  const scanTag = (from: number): void => {
    let p = from;
    for (; p < n && !endsTagName(text[p]); p++) if (!firstVisit(p, IN_TAG_NAME)) return;
    for (;;) {
      if (!firstVisit(p, BEFORE_ATTRIBUTE)) return;
      const gap = p;
      p = skip(text, p, (c) => isHtmlSpace(c) || c === '/');
      if (p >= n || text[p] === '>' || !firstVisit(p, AT_ATTRIBUTE)) return;
      const nameStart = p++; // the first character is part of the name whatever it is, even `=`
      while (p < n && !endsTagName(text[p]) && text[p] !== '=') p++;
      const hidden = p - nameStart <= 10 && HIDDEN_ATTRIBUTES.has(text.slice(nameStart, p).toLowerCase());
      const start = backOverSpaces(text, nameStart, gap);
      let q = skip(text, p, isHtmlSpace);
      if (text[q] !== '=') {
        strip(hidden, start, p);
        continue;
      }
      q = skip(text, q + 1, isHtmlSpace);
      if (q >= n || text[q] === '>' || !firstVisit(q, hidden ? AT_HIDDEN_VALUE : AT_VALUE)) {
        strip(hidden, start, q); // an earlier scan that was here removed the value
        return;
      }
      p = attributeValueEnd(text, q);
      strip(hidden, start, p);
    }
  };
  for (let at = text.indexOf('<'); at !== -1; at = text.indexOf('<', at + 1)) {
    const name = at + (text[at + 1] === '/' ? 2 : 1);
    if (isAsciiLetter(text[name])) scanTag(name);
  }
  return count;
}

function attributeValueEnd(text: string, at: number): number {
  const quote = text[at];
  if (quote !== '"' && quote !== "'")
    return skip(text, at, (c) => c !== undefined && !isHtmlSpace(c) && c !== '>');
  const close = text.indexOf(quote, at + 1);
  return close === -1 ? text.length : close + 1;
}

/**
 * Titles of links and images, `[text](url "title")` (or `'title'`, `(title)`), and of definitions,
 * `[ref]: url "title"`, whose label starts a line and ends at the next unescaped `]`: one per line.
 */
function removeLinkTitles(text: string, mask: Uint8Array): { count: number; definitions: boolean } {
  let count = 0;
  let definitions = false;
  const strip = (title: [number, number] | undefined): void => {
    if (title && remove(mask, title[0], title[1])) count++;
  };
  for (let at = text.indexOf(']('); at !== -1; at = text.indexOf('](', at + 1))
    strip(linkTitle(text, at + 2, false));
  for (let line = 0; line < text.length; line = lineEnd(text, line) + 1) {
    let close = line;
    while (close < text.length && text[close] !== ']' && text[close] !== '\n')
      close += text[close] === '\\' && isAsciiPunctuation(text[close + 1]) ? 2 : 1;
    if (text[close] !== ']' || text[close + 1] !== ':') continue;
    definitions = true;
    strip(linkTitle(text, close + 2, true));
  }
  return { count, definitions };
}

/** The title after a link destination at `from`, with the spaces before it, when there is one. */
function linkTitle(text: string, from: number, definition: boolean): [number, number] | undefined {
  const destEnd = destinationEnd(text, skip(text, from, isWhitespace));
  if (destEnd === undefined) return undefined;
  const titleStart = skip(text, destEnd, isWhitespace);
  const titleEnd = titleStart > destEnd ? delimitedEnd(text, titleStart, `"'(`) : undefined;
  if (titleEnd === undefined) return undefined;
  const after = skip(text, titleEnd, isSpaceOrTab);
  // A definition's title must end its line; a link's must be followed by the closing parenthesis.
  const ends = definition
    ? after >= text.length || isLineBreak(text[after])
    : text[skip(text, after, isWhitespace)] === ')';
  return ends ? [backOverSpaces(text, titleStart, destEnd), titleEnd] : undefined;
}

function destinationEnd(text: string, at: number): number | undefined {
  if (text[at] === '<') return delimitedEnd(text, at, '<');
  let depth = 0;
  let i = at;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c && isAsciiPunctuation(text[i + 1])) i++;
    else if (c <= 0x20 || c === 0x7f)
      break; // spaces and control characters end it
    else if (c === 0x28 && ++depth > MAX_DESTINATION_PARENS) return undefined;
    else if (c === 0x29 && depth-- === 0) break;
  }
  return i > at ? i : undefined;
}

/** End of a `"title"`, `'title'`, `(title)` or `<destination>` opening at `at` with one of `opens`. */
function delimitedEnd(text: string, at: number, opens: string): number | undefined {
  const open = text[at];
  const close = open && opens.includes(open) ? CLOSERS[open] : undefined;
  for (let i = at + 1; close !== undefined && i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === close) return i + 1;
    else if ((c === open && open !== close) || (open === '<' && isLineBreak(c))) return undefined;
  }
  return undefined;
}

/** `![alt](url)`, `![alt][ref]` (and `![alt]` when `shortcuts`), block by block: inline syntax never crosses a blank line. */
function removeAltTexts(text: string, mask: Uint8Array, shortcuts: boolean): number {
  const endsImage = (close: number): boolean =>
    shortcuts || text[close + 1] === '(' || text[close + 1] === '[';
  const inBlock = (start: number, end: number): number => {
    const closerOf = new Map<number, number>();
    const [images, risky, open]: [number[], number[], number[]] = [[], [], []];
    let lastCloser = -1;
    let escaped = -1;
    for (let i = start; i < end; i++) {
      const c = text[i];
      if (c === '\\' && isAsciiPunctuation(text[i + 1])) escaped = ++i;
      else if (c === '`' || c === '<') risky.push(i);
      else if (c === '[') {
        open.push(i);
        if (text[i - 1] === '!' && escaped !== i - 1) images.push(i);
      } else if (c === ']') {
        const opener = open.pop();
        if (opener !== undefined) closerOf.set(opener, i);
        if (endsImage(i)) lastCloser = i;
      }
    }
    let count = 0;
    let clearedTo = -1;
    let r = 0;
    for (const opener of images) {
      if (opener < clearedTo) continue;
      while ((risky[r] ?? end) < opener) r++;
      const own = closerOf.get(opener);
      let close = own !== undefined && endsImage(own) ? own : -1;
      // A code span or raw HTML after the opener can hide brackets from GitHub's matching, so the
      // closer GitHub finds may be any later one: take the furthest.
      const firstRisky = risky[r] ?? end;
      if (lastCloser > firstRisky && (close === -1 || firstRisky < close)) close = lastCloser;
      if (close === -1) continue;
      if (remove(mask, opener + 1, close)) count++;
      clearedTo = close;
    }
    return count;
  };
  let count = 0;
  let blockStart = -1;
  for (let line = 0; line <= text.length; line = lineEnd(text, line) + 1) {
    const eol = lineEnd(text, line);
    const blank = skip(text, line, (c) => isSpaceOrTab(c) || c === '\r') >= eol;
    if (!blank && blockStart === -1) blockStart = line;
    if ((blank || eol === text.length) && blockStart !== -1) {
      count += inBlock(blockStart, blank ? line : eol);
      blockStart = -1;
    }
  }
  return count;
}

function keepVisible(text: string, mask: Uint8Array): { visible: string; invisibleCharacters: number } {
  const parts: string[] = [];
  for (let i = 0; i < text.length; ) {
    let j = i;
    while (mask[j] === 0) j++;
    if (j > i) parts.push(text.slice(i, j));
    while (mask[j] === 1) j++;
    i = j;
  }
  let invisibleCharacters = 0;
  const visible = parts.join('').replace(INVISIBLE, () => {
    invisibleCharacters++;
    return '';
  });
  return { visible, invisibleCharacters };
}

function lineEnd(text: string, from: number): number {
  const at = text.indexOf('\n', from);
  return at === -1 ? text.length : at;
}

function skip(text: string, from: number, test: (c: Char) => boolean): number {
  let i = from;
  while (test(text[i])) i++;
  return i;
}

/** Start of the spaces and tabs just before `at` (not before `floor`); a line break stays. */
function backOverSpaces(text: string, at: number, floor: number): number {
  let i = at;
  while (i > floor && isSpaceOrTab(text[i - 1])) i--;
  return i;
}
