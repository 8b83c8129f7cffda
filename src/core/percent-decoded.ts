/**
 * Percent-encoding undone for matching, not for showing: an attacker agent wrote a secret with every
 * character percent-encoded (`%7A%7A%2D…`, then `%257A` for good measure) and it passed every filter
 * that looked for the secret's own characters. The view decodes `%XX` of any character, in either
 * case, mixed with literal characters, layer after layer (double and triple encoding), and can say
 * for any span of the decoded text which span of the original it came from, so a match in the view
 * names exactly what to remove from the original.
 *
 * Each `%XX` becomes the one character with that code (Latin-1), not a UTF-8 sequence: the secrets
 * issueloop holds are ASCII tokens, and a byte-for-character view keeps the span arithmetic exact.
 * The mapping is sparse (where each layer's escapes are), so a 1 MB log with a few encoded URLs costs
 * one native `replace` per layer and no per-character bookkeeping.
 */

export interface DecodedView {
  /** The text with `%XX` decoded, as many layers as it had (up to MAX_LAYERS). */
  text: string;
  /** The span [start, end) of the original that the decoded span [start, end) came from. */
  original(start: number, end: number): [number, number];
}

const ENCODED = /%[0-9A-Fa-f]{2}/g;
const HAS_ENCODED = /%[0-9A-Fa-f]{2}/;
/** `%25` encodes `%` itself: each layer undoes one round of encoding. */
const MAX_LAYERS = 4;

/** Per layer: the decoded positions that were a `%XX` in the layer below, ascending. */
type Layer = number[];

/** The decoded view of `text`, or undefined when nothing in it is percent-encoded (the common case, kept cheap). */
export function percentDecodedView(text: string): DecodedView | undefined {
  if (text.indexOf('%') === -1 || !HAS_ENCODED.test(text)) return undefined;
  const layers: Layer[] = [];
  let decoded = text;
  while (layers.length < MAX_LAYERS && HAS_ENCODED.test(decoded)) {
    const escapes: Layer = [];
    let removed = 0;
    decoded = decoded.replace(ENCODED, (encoded: string, at: number) => {
      escapes.push(at - removed);
      removed += 2;
      return String.fromCharCode(Number.parseInt(encoded.slice(1), 16));
    });
    layers.push(escapes);
  }
  return {
    text: decoded,
    original(start, end) {
      let span: [number, number] = [start, end];
      for (let i = layers.length - 1; i >= 0; i--) span = below(layers[i] ?? [], span);
      return span;
    },
  };
}

/** A span of one layer as the span of the layer below it. */
function below(escapes: Layer, [start, end]: [number, number]): [number, number] {
  const first = start + 2 * before(escapes, start);
  const last = end - 1;
  const n = before(escapes, last);
  const lastEnd = last + 2 * n + (escapes[n] === last ? 3 : 1);
  return [first, end > start ? lastEnd : first];
}

/** How many escapes sit before `position`: a binary search. */
function before(escapes: Layer, position: number): number {
  let low = 0;
  let high = escapes.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((escapes[mid] ?? 0) < position) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The spans of the original text (merged, in order) whose decoded form matches one of `patterns`
 * (each global) and holds at least one decoded `%XX` (a match of literal text alone is the literal
 * passes' business). Empty without a view.
 */
export function decodedMatches(
  view: DecodedView | undefined,
  patterns: ReadonlyArray<RegExp | undefined>,
): Array<[number, number]> {
  if (!view) return [];
  const spans: Array<[number, number]> = [];
  for (const pattern of patterns) {
    if (!pattern) continue;
    // exec on the pattern itself: matchAll would clone it on every call.
    pattern.lastIndex = 0;
    for (let match = pattern.exec(view.text); match !== null; match = pattern.exec(view.text)) {
      if (match[0].length === 0) {
        pattern.lastIndex += 1;
        continue;
      }
      const span = view.original(match.index, match.index + match[0].length);
      if (span[1] - span[0] > match[0].length) spans.push(span);
    }
    pattern.lastIndex = 0;
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

/** `text` with each span (in order, not overlapping) replaced by `replacement`. */
export function replaceSpans(
  text: string,
  spans: ReadonlyArray<[number, number]>,
  replacement: string,
): string {
  if (spans.length === 0) return text;
  const parts: string[] = [];
  let at = 0;
  for (const [first, last] of spans) {
    parts.push(text.slice(at, first), replacement);
    at = last;
  }
  parts.push(text.slice(at));
  return parts.join('');
}
