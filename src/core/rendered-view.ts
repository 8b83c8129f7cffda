/**
 * A text as a reader of GitHub sees it and copies it, for matching, not for showing. An attacker
 * agent wrote a secret with every character percent-encoded (`%7A%7A%2D…`, then `%257A`), then as
 * HTML character references (`&#122;&#x7a;&lowbar;`, which GitHub renders), then with zero-width
 * characters between its letters (which nobody sees and a copy keeps): each passed every filter
 * that looked for the secret's own characters. The view undoes all of it, in one pass per layer:
 *
 * - `%XX` of any character, in either case; a run that is UTF-8 (`%C3%A4`) becomes its character;
 * - character references, numeric, hex and named (html-entities.ts, the neutraliser's decoder);
 * - characters that render as nothing (zero-width, soft hyphen, Cf, variation selectors) go;
 * - compatibility forms of ASCII (full-width `ｚ`, `𝐳`) and dashes become the ASCII they show as;
 *
 * mixed with literal characters, layer after layer (`%2526%2523122%253B`, `&amp;#122;`). For any
 * span of the view it names the span of the original it came from, so a match in the view says
 * exactly what to remove from the original. The mapping is sparse (only where a layer changed
 * something), and a text with none of `%`, `&`, an invisible or a foldable character has no view.
 */
import { entityAt, FOLDABLE_SOURCE, foldedText, INVISIBLE, INVISIBLE_SOURCE } from './html-entities.js';

export interface RenderedView {
  /** The text as rendered: decoded as many layers as it had (up to MAX_LAYERS). */
  text: string;
  /** The span [start, end) of the original that the view's span [start, end) came from. */
  original(start: number, end: number): [number, number];
}

/** What may change the text: a run of escapes, a reference, invisibles, a foldable character. */
const CHANGE_SOURCE = `(?:%[0-9A-Fa-f]{2})+|&#?[0-9A-Za-z]|[${INVISIBLE_SOURCE}]+|[${FOLDABLE_SOURCE}]`;
const CHANGE = new RegExp(CHANGE_SOURCE, 'gu');
const TRIGGER = new RegExp(`[%&${INVISIBLE_SOURCE}${FOLDABLE_SOURCE}]`, 'u');
/**
 * Markdown that renders as nothing between two letters (`*`, `~`, a backtick, an HTML tag, a link's
 * bracket) or as the character it escapes (`\-`). `_` is left alone here: inside a word GitHub
 * shows it as it is (the emphasis reading below drops the runs that could be emphasis).
 */
const MARKUP_SOURCE = '\\\\[!-/:-@[-`{-~]|[*~`]+|<\\/?[A-Za-z][^<>\\n]{0,500}>|[\\[\\]]';
/**
 * What a link shows none of after its text: an inline link's `](destination "title")`, a reference
 * link's `][label]` or `][]` (CommonMark's forms, each part bounded: a label has at most 999
 * characters). A `][label]` followed by `(` is a stray `]` before an inline link (`a][b](url)c`
 * shows `a]bc`), not a reference: read as one, it dropped the link's text and kept its destination.
 */
const LINK_TAIL_SOURCE = String.raw`\]\((?:<[^<>\n]{0,2000}>|(?:[^()\s]|\([^()\s]{0,2000}\)){0,2000})(?:\s{1,100}(?:"[^"\n]{0,1000}"|'[^'\n]{0,1000}'|\([^()\n]{0,1000}\)))?\s{0,100}\)|\]\[[^[\]\n]{0,999}\](?!\()`;
const MARKDOWN_CHANGE = new RegExp(`${MARKUP_SOURCE}|${CHANGE_SOURCE}`, 'gu');
const MARKDOWN_TRIGGER = new RegExp(`[*~\`\\\\<[\\]%&${INVISIBLE_SOURCE}${FOLDABLE_SOURCE}]`, 'u');
const EMPHASIS_CHANGE = new RegExp(`${LINK_TAIL_SOURCE}|_+|${MARKUP_SOURCE}|${CHANGE_SOURCE}`, 'gu');
const EMPHASIS_TRIGGER = new RegExp(`[_*~\`\\\\<[\\]%&${INVISIBLE_SOURCE}${FOLDABLE_SOURCE}]`, 'u');
/** Next to it, a run of `_` is inside a word and shown as it is (CommonMark: not whitespace, not punctuation). */
const WORDLIKE = /^[^\s\p{P}\p{S}]/u;

export interface ViewOptions {
  /**
   * The text is Markdown GitHub renders (a PR body, a comment, a commit message shown on GitHub):
   * emphasis, strike-through, code ticks, link brackets and tags between letters go, backslash
   * escapes are undone (`zz-0123**4567**…`, `zz-01[23]45…` and `zz\-0123…` show the secret). Off
   * for logs, where `*`, backticks and `\` are everywhere and nothing renders them.
   */
  markdown?: boolean;
  /**
   * With `markdown`, read what renders as nothing only in some texts too: a run of `_` CommonMark
   * could take for emphasis (any not between two letters or digits: `zz-…-_token_`, `sk-_ant_-…`),
   * and a link's destination or reference label (`zz-01[23](https://…)45…`). A second reading,
   * beside the first (markdownViews): it loses a secret with `_` next to punctuation, or one in
   * a destination that turns out not to be one, which the first keeps.
   */
  emphasis?: boolean;
}
/** `%25` encodes `%` and `&amp;` `&`: each layer undoes one round of encoding. */
const MAX_LAYERS = 6;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * One layer's changes, ascending: the characters [srcStart, srcEnd) of the layer below became the
 * characters [outStart, outEnd) of this one (none, for what renders as nothing).
 */
interface Layer {
  srcStart: number[];
  srcEnd: number[];
  outStart: number[];
  outEnd: number[];
}

/** The rendered view of `text`, or undefined when rendering changes nothing (the common case, kept cheap). */
export function renderedView(text: string, options: ViewOptions = {}): RenderedView | undefined {
  const emphasis = options.markdown === true && options.emphasis === true;
  const trigger = emphasis ? EMPHASIS_TRIGGER : options.markdown ? MARKDOWN_TRIGGER : TRIGGER;
  const change = emphasis ? EMPHASIS_CHANGE : options.markdown ? MARKDOWN_CHANGE : CHANGE;
  if (!trigger.test(text)) return undefined;
  const layers: Layer[] = [];
  let rendered = text;
  while (layers.length < MAX_LAYERS) {
    const { text: next, layer } = renderLayer(rendered, change);
    if (layer.srcStart.length === 0) break;
    layers.push(layer);
    rendered = next;
    if (!trigger.test(rendered)) break;
  }
  if (layers.length === 0) return undefined;
  return {
    text: rendered,
    original(start, end) {
      let first = start;
      let last = end;
      for (let i = layers.length - 1; i >= 0; i--) {
        const layer = layers[i] as Layer;
        if (last <= first) {
          first = below(layer, first, 'start');
          last = first;
        } else {
          first = below(layer, first, 'start');
          last = below(layer, last - 1, 'end');
        }
      }
      return [first, last];
    },
  };
}

/** One round of rendering over `text`, and what it changed where. */
function renderLayer(text: string, CHANGE: RegExp): { text: string; layer: Layer } {
  const layer: Layer = { srcStart: [], srcEnd: [], outStart: [], outEnd: [] };
  const parts: string[] = [];
  let from = 0;
  let length = 0;
  const change = (at: number, took: number, out: string) => {
    parts.push(text.slice(from, at), out);
    length += at - from;
    layer.srcStart.push(at);
    layer.srcEnd.push(at + took);
    layer.outStart.push(length);
    length += out.length;
    layer.outEnd.push(length);
    from = at + took;
  };
  CHANGE.lastIndex = 0;
  for (let match = CHANGE.exec(text); match !== null; match = CHANGE.exec(text)) {
    const at = match.index;
    const found = match[0];
    if (found.startsWith('\\')) {
      change(at, 2, found.slice(1));
    } else if (found.startsWith('_')) {
      // Between two letters or digits a run of `_` is shown; anywhere else it may be emphasis.
      const after = text.slice(at + found.length, at + found.length + 2);
      if (!(WORDLIKE.test(lastChar(text, at)) && WORDLIKE.test(after))) change(at, found.length, '');
    } else if (/^[*~`<[\]]/.test(found)) {
      change(at, found.length, '');
    } else if (found.startsWith('%')) {
      let here = at;
      for (const { char, took } of decodeRun(found)) {
        change(here, took, char);
        here += took;
      }
    } else if (found.startsWith('&')) {
      const entity = entityAt(text, at);
      if (entity) {
        change(at, entity.length, INVISIBLE.test(entity.char) ? '' : entity.char);
        CHANGE.lastIndex = at + entity.length;
      } else CHANGE.lastIndex = at + 1;
    } else if (INVISIBLE.test(found)) {
      change(at, found.length, '');
    } else {
      const folded = foldedText(found);
      if (folded !== found) change(at, found.length, folded);
    }
  }
  if (layer.srcStart.length === 0) return { text, layer };
  parts.push(text.slice(from));
  return { text: parts.join(''), layer };
}

/** The character (a whole surrogate pair) that ends right before `at`, or ''. */
function lastChar(text: string, at: number): string {
  const low = /[\uDC00-\uDFFF]/.test(text[at - 1] ?? '');
  return text.slice(Math.max(0, at - (low ? 2 : 1)), at);
}

/**
 * The characters a run of escapes stands for, each with how many characters of the run it took: a
 * UTF-8 sequence of 2 to 4 bytes is one character, any other byte is the character with its code.
 */
function decodeRun(run: string): Array<{ char: string; took: number }> {
  const bytes: number[] = [];
  for (let i = 0; i < run.length; i += 3) bytes.push(Number.parseInt(run.slice(i + 1, i + 3), 16));
  const chars: Array<{ char: string; took: number }> = [];
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i] ?? 0;
    const length = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 1;
    const char = length > 1 ? utf8Char(bytes.slice(i, i + length)) : undefined;
    if (char !== undefined) {
      chars.push({ char: INVISIBLE.test(char) ? '' : foldedText(char), took: 3 * length });
      i += length;
    } else {
      chars.push({ char: String.fromCharCode(b), took: 3 });
      i += 1;
    }
  }
  return chars;
}

/** The one character these bytes encode, or undefined (cut short or invalid). */
function utf8Char(bytes: number[]): string | undefined {
  try {
    const char = UTF8.decode(Uint8Array.from(bytes));
    return [...char].length === 1 ? char : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where, in the layer below, the character at `position` of this layer starts (`start`) or ends
 * (`end`, exclusive): a changed character takes its whole source, an unchanged one is shifted by
 * what the changes before it added or removed.
 */
function below(layer: Layer, position: number, edge: 'start' | 'end'): number {
  // The last change that starts at or before `position`: a binary search.
  let low = 0;
  let high = layer.outStart.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((layer.outStart[mid] ?? 0) <= position) low = mid + 1;
    else high = mid;
  }
  const k = low - 1;
  if (k < 0) return edge === 'start' ? position : position + 1;
  const outEnd = layer.outEnd[k] ?? 0;
  const srcEnd = layer.srcEnd[k] ?? 0;
  if (position < outEnd) return edge === 'start' ? (layer.srcStart[k] ?? 0) : srcEnd;
  const shifted = position - outEnd + srcEnd;
  return edge === 'start' ? shifted : shifted + 1;
}

/**
 * The views of a text GitHub renders as Markdown: the one that keeps every `_` and link destination,
 * and the one that drops those that may render as nothing (`emphasis`). A match in either is a match.
 */
export function markdownViews(text: string): Array<RenderedView | undefined> {
  return [renderedView(text, { markdown: true }), renderedView(text, { markdown: true, emphasis: true })];
}

/**
 * The spans of the original text (merged, in order) whose rendered form, in any of the views, matches
 * one of `patterns` (each global) and differs from what is written there, or from what is around it
 * (a match of the literal text alone is the literal passes' business). Empty without a view.
 */
export function renderedMatches(
  original: string,
  views: RenderedView | undefined | ReadonlyArray<RenderedView | undefined>,
  patterns: ReadonlyArray<RegExp | undefined>,
): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const view of Array.isArray(views) ? views : [views]) {
    if (view) matchesIn(original, view, patterns, spans);
  }
  spans.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const span of spans) {
    const previous = merged.at(-1);
    if (previous && span[0] <= previous[1]) previous[1] = Math.max(previous[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  return merged;
}

function matchesIn(
  original: string,
  view: RenderedView,
  patterns: ReadonlyArray<RegExp | undefined>,
  spans: Array<[number, number]>,
): void {
  for (const pattern of patterns) {
    if (!pattern) continue;
    // exec on the pattern itself: matchAll would clone it on every call.
    pattern.lastIndex = 0;
    for (let match = pattern.exec(view.text); match !== null; match = pattern.exec(view.text)) {
      if (match[0].length === 0) {
        pattern.lastIndex += 1;
        continue;
      }
      const end = match.index + match[0].length;
      const span = view.original(match.index, end);
      // Written as it renders, between the same neighbours (a `\b` reads them): the literal passes saw it.
      const literal =
        original.slice(span[0], span[1]) === match[0] &&
        original[span[0] - 1] === view.text[match.index - 1] &&
        original[span[1]] === view.text[end];
      if (!literal) spans.push(span);
    }
    pattern.lastIndex = 0;
  }
}
