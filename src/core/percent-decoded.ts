/**
 * Percent-encoding undone for matching, not for showing: an attacker agent wrote a secret with every
 * character percent-encoded (`%7A%7A%2D…`, then `%257A` for good measure) and it passed every filter
 * that looked for the secret's own characters. The view decodes `%XX` of any character, in either
 * case, mixed with literal characters, layer after layer (double and triple encoding), and can say
 * for any span of the decoded text which span of the original it came from, so a match in the view
 * names exactly what to remove from the original.
 *
 * A run of escapes that is UTF-8 (`%C3%A4`) becomes its character, so a non-ASCII secret is found
 * however its characters were written; any other `%XX` becomes the character with that code. The
 * mapping is sparse (only where each layer decoded something), so a 1 MB log with a few encoded URLs
 * costs one native `replace` per layer and no per-character bookkeeping.
 */

export interface DecodedView {
  /** The text with `%XX` decoded, as many layers as it had (up to MAX_LAYERS). */
  text: string;
  /** The span [start, end) of the original that the decoded span [start, end) came from. */
  original(start: number, end: number): [number, number];
}

/** A run of escapes: decoded together, so a UTF-8 sequence (`%C3%A4`) becomes its one character. */
const ENCODED_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const HAS_ENCODED = /%[0-9A-Fa-f]{2}/;
/** `%25` encodes `%` itself: each layer undoes one round of encoding. */
const MAX_LAYERS = 4;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Per layer, ascending: each decoded character that came from escapes, where it is in the layer's
 * text (`at`), how many characters of the layer below it took (`took`: 3 per escape), and how many
 * characters the layer had removed up to and including it (`removed`).
 */
interface Layer {
  at: number[];
  took: number[];
  removed: number[];
}

/** The decoded view of `text`, or undefined when nothing in it is percent-encoded (the common case, kept cheap). */
export function percentDecodedView(text: string): DecodedView | undefined {
  if (text.indexOf('%') === -1 || !HAS_ENCODED.test(text)) return undefined;
  const layers: Layer[] = [];
  let decoded = text;
  while (layers.length < MAX_LAYERS && HAS_ENCODED.test(decoded)) {
    const layer: Layer = { at: [], took: [], removed: [] };
    let removed = 0;
    decoded = decoded.replace(ENCODED_RUN, (run: string, at: number) => {
      let outAt = at - removed;
      const chars = decodeRun(run);
      for (const { took } of chars) {
        removed += took - 1;
        layer.at.push(outAt++);
        layer.took.push(took);
        layer.removed.push(removed);
      }
      return chars.map(({ char }) => char).join('');
    });
    layers.push(layer);
  }
  return {
    text: decoded,
    original(start, end) {
      let span: [number, number] = [start, end];
      for (let i = layers.length - 1; i >= 0; i--) span = below(layers[i] as Layer, span);
      return span;
    },
  };
}

/**
 * The characters a run of escapes stands for, each with how many characters of the run it took: a
 * UTF-8 sequence of 2 or 3 bytes is one character, any other byte is the character with its code.
 */
function decodeRun(run: string): Array<{ char: string; took: number }> {
  const bytes: number[] = [];
  for (let i = 0; i < run.length; i += 3) bytes.push(Number.parseInt(run.slice(i + 1, i + 3), 16));
  const chars: Array<{ char: string; took: number }> = [];
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i] ?? 0;
    const length = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : 1;
    const char = length > 1 ? utf8Char(bytes.slice(i, i + length)) : undefined;
    if (char !== undefined) {
      chars.push({ char, took: 3 * length });
      i += length;
    } else {
      chars.push({ char: String.fromCharCode(b), took: 3 });
      i += 1;
    }
  }
  return chars;
}

/** The one UTF-16 unit these bytes encode, or undefined (cut short, invalid, or outside the BMP). */
function utf8Char(bytes: number[]): string | undefined {
  try {
    const char = UTF8.decode(Uint8Array.from(bytes));
    return char.length === 1 ? char : undefined;
  } catch {
    return undefined;
  }
}

/** A span of one layer as the span of the layer below it. */
function below(layer: Layer, [start, end]: [number, number]): [number, number] {
  const removedBefore = (n: number) => (n === 0 ? 0 : (layer.removed[n - 1] ?? 0));
  const first = start + removedBefore(countBefore(layer, start));
  if (end <= start) return [first, first];
  const last = end - 1;
  const m = countBefore(layer, last);
  const lastStart = last + removedBefore(m);
  return [first, lastStart + (layer.at[m] === last ? (layer.took[m] ?? 1) : 1)];
}

/** How many decoded characters of the layer sit before `position`: a binary search. */
function countBefore(layer: Layer, position: number): number {
  let low = 0;
  let high = layer.at.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((layer.at[mid] ?? 0) < position) low = mid + 1;
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
