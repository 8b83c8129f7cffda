/**
 * The one neutraliser for every text issueloop writes to GitHub (pull request title and body, commit
 * message, thread replies, PR comments, the tracking comment): nothing in a text the agent, an issue
 * or CI wrote may close an issue or ping anyone.
 *
 * GitHub acts on what it renders, not on the raw characters: `closes &#35;3`, `closes \#2`,
 * `**closes** #3`, `Closes: #3` and `&#64;team` all render as a live reference or mention. So the
 * text is first read the way GitHub reads it (a "shadow": entities decoded, backslash escapes
 * undone, emphasis, code, link brackets and HTML tags dropped, full-width forms folded), references
 * and mentions are found there, and each is broken in the original by a WORD JOINER (U+2060) right
 * before its number or name: invisible, in every context (prose, code span, fenced block, table
 * cell) it stops GitHub from reading `#⁠3` as a reference or `@⁠team` as a mention, whatever
 * encoding the `#` or `@` had. Whatever could be one is treated as one: a needless joiner costs
 * nothing, a missed one closes an issue. Code is not exempt (as in sanitize.ts): telling code from
 * prose exactly as GitHub does would take its parser, and a wrong guess would leave a live mention.
 *
 * Character references and compatibility forms are read with the redactor's decoder
 * (core/html-entities.ts): one reading of what GitHub renders.
 */
import { entityAt, foldedText } from '../core/html-entities.js';

/** Breaks a reference or a mention and shows nothing. */
export const WORD_JOINER = '\u2060';

interface Shadow {
  /** The text as GitHub's reference and mention filters would see it. */
  text: string;
  /** For each shadow character: where it starts in the original. */
  at: number[];
  /** For each shadow character: markup (emphasis, code, a link's bracket, a tag) was dropped right before it. */
  boundary: boolean[];
}

const ASCII_PUNCTUATION = /^[!-/:-@[-`{-~]$/;
/** Markup that renders as nothing between two pieces of text. */
const MARKUP = new Set(['*', '_', '~', '`', '[', ']']);
const TAG = /<\/?[A-Za-z][^<>\n]{0,500}>/y;

/** `text` as GitHub's filters read it, with where each character came from. */
function shadowOf(text: string): Shadow {
  const shadow: Shadow = { text: '', at: [], boundary: [] };
  const chars: string[] = [];
  let dropped = false;
  // One shadow character per UTF-16 unit (`&fjlig;` renders as two, `&Aopf;` folds to one).
  const emit = (rendered: string, from: number) => {
    for (const char of rendered.split('')) {
      chars.push(char);
      shadow.at.push(from);
      shadow.boundary.push(dropped);
      dropped = false;
    }
  };
  for (let i = 0; i < text.length; ) {
    const c = text[i] ?? '';
    const next = text[i + 1] ?? '';
    const entity = c === '&' ? entityAt(text, i) : undefined;
    const markup = c === '<' ? matchAt(TAG, text, i) : 0;
    if (entity) {
      emit(entity.char, i);
      i += entity.length;
    } else if (c === '\\' && ASCII_PUNCTUATION.test(next)) {
      emit(next, i);
      i += 2;
    } else if (markup > 0 || MARKUP.has(c)) {
      dropped = true;
      i += Math.max(1, markup);
    } else {
      emit(foldedText(c), i);
      i += 1;
    }
  }
  shadow.text = chars.join('');
  return shadow;
}

function matchAt(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0].length ?? 0;
}

const KEYWORD = /(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)/;
/**
 * `#N`, `owner/repo#N`, `GH-N`, an issue or pull request URL. Names are bounded by GitHub's own
 * limits (owner 39, repository 100 characters, with room to spare), so a keyword followed by a
 * long word costs a bounded look, not one to the word's end: the agent's text cannot make this slow.
 */
const REF =
  /(?:[\w.-]{1,100}\/[\w.-]{1,100})?#\d+|GH-\d+|https?:\/\/[^\s/]{1,255}\/[\w.-]{1,100}\/[\w.-]{1,100}\/(?:issues|pull)\/\d+/;
/** Gaps GitHub (or a more generous reader) could skip between a keyword and its references. */
const GAP = String.raw`[\s:\p{Cf}]*`;
const LIST_GAP = String.raw`[\s,:\p{Cf}]*(?:and[\s\p{Cf}]+)?`;
const CLOSING = new RegExp(
  `${KEYWORD.source}${GAP}(?:${REF.source})(?:${LIST_GAP}(?:${REF.source}))*`,
  'giu',
);
/** Where, inside a closing reference, its issue number starts. */
const NUMBER_START = /(?:#|GH-|\/(?:issues|pull)\/)(?=\d)/gi;
const MENTION = /@[A-Za-z0-9]/g;
const WORD = /[A-Za-z0-9_]/;

/** Shadow positions right before which a joiner goes: the numbers of closing references, the names of mentions. */
function breakPoints(shadow: Shadow): number[] {
  const points: number[] = [];
  const startsWord = (i: number) =>
    i === 0 || shadow.boundary[i] === true || !WORD.test(shadow.text[i - 1] ?? '');
  for (const match of shadow.text.matchAll(CLOSING)) {
    if (!startsWord(match.index)) continue;
    for (const ref of match[0].matchAll(NUMBER_START)) points.push(match.index + ref.index + ref[0].length);
  }
  for (const match of shadow.text.matchAll(MENTION)) {
    if (startsWord(match.index)) points.push(match.index + 1);
  }
  return points;
}

/**
 * `text` with every closing reference (a closing keyword, then `#N`, `owner/repo#N`, `GH-N` or an
 * issue URL, in any encoding GitHub decodes) and every mention (`@user`, `@org/team`) made inert by a
 * word joiner. Everything else is kept as it was.
 */
export function neutraliseMarkdown(text: string): string {
  // Nothing that is or folds to `#`, `@`, an entity, an escape, `GH-` or an issue URL: nothing to do.
  if (!/[@#&\\\ufe50-\ufe6f\uff00-\uffef]|GH-|\/(?:issues|pull)\//i.test(text)) return text;
  const shadow = shadowOf(text);
  const at = [...new Set(breakPoints(shadow).map((i) => shadow.at[i] ?? text.length))].sort((a, b) => a - b);
  if (at.length === 0) return text;
  const parts: string[] = [];
  let from = 0;
  for (const point of at) {
    parts.push(text.slice(from, point), WORD_JOINER);
    from = point;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/**
 * Every Markdown image made a link: GitHub's camo proxy fetches an image's URL whenever someone opens
 * the pull request, a way out for what the agent read that no egress rule sees (found by the red
 * team). An image starts with a literal `![` (inline, `![x][r]`, `![x][]` or `![x]`); a character
 * reference is never structure in CommonMark, so `&#33;[x](url)` shows `!` and a link. A `!` that a
 * backslash already escapes is left as it is (one more backslash would escape the backslash instead).
 * The lookbehind starts a run of backslashes at its first: one scan, linear.
 */
export function inertImages(text: string): string {
  return text.replace(/(?<!\\)(\\*)!(?=\[)/g, (found, escapes: string) =>
    escapes.length % 2 === 1 ? found : `${escapes}&#33;`,
  );
}

/** Every line break GitHub or a browser honours, and the other controls, shown as their Unicode pictures. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what is made visible.
const VISIBLE_BREAK = /[\u0000-\u001f\u007f\u0085\u2028\u2029]/g;

/**
 * Inline code that shows `text` verbatim on one line, however many backticks it holds: a file name
 * with blank lines in it broke out of a code span and turned `@team` into a live mention. Line
 * breaks (`\n`, `\r`, NEL, U+2028/2029) and other controls become their visible pictures (`␊`), and
 * the fence is longer than any run of backticks inside.
 */
export function codeSpan(text: string): string {
  if (text === '') return '_(empty)_';
  const shown = text.replace(VISIBLE_BREAK, picture);
  const ticks = '`'.repeat(longestRun(shown, '`') + 1);
  const pad = /^[` ]|[` ]$/.test(shown) ? ' ' : '';
  return `${ticks}${pad}${shown}${pad}${ticks}`;
}

function picture(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  return code === 0x7f ? '\u2421' : '\u2424';
}

export function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}
