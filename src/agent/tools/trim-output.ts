/** Tool output longer than the limit keeps its head (what started) and tail (how it ended). */

export function omittedMarker(omitted: number): string {
  return `\n… [${omitted} characters omitted] …\n`;
}

function split(limit: number): { head: number; tail: number } {
  const total = Math.max(0, Math.floor(limit));
  const head = Math.floor(total / 2);
  return { head, tail: total - head };
}

const isHighSurrogate = (code: number | undefined) => code !== undefined && code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number | undefined) => code !== undefined && code >= 0xdc00 && code <= 0xdfff;

/** Joins head and tail around the marker, never leaving half a surrogate pair at a cut. */
function assemble(head: string, tail: string, total: number): string {
  let h = head;
  let t = tail;
  if (isHighSurrogate(h.charCodeAt(h.length - 1))) h = h.slice(0, -1);
  if (isLowSurrogate(t.charCodeAt(0))) t = t.slice(1);
  return `${h}${omittedMarker(total - h.length - t.length)}${t}`;
}

/** `text` unchanged when it fits in `limit` characters; otherwise about limit/2 of head and of tail. */
export function trimOutput(text: string, limit: number): string {
  const { head, tail } = split(limit);
  if (text.length <= head + tail) return text;
  return assemble(text.slice(0, head), tail === 0 ? '' : text.slice(-tail), text.length);
}

export interface OutputCollector {
  push(chunk: string): void;
  /** Everything pushed, trimmed exactly as `trimOutput` would trim it. */
  text(): string;
  /** Characters dropped so far (before surrogate-pair adjustment at the cuts). */
  omitted(): number;
}

/**
 * Collects a stream in bounded memory: the first limit/2 characters and a rolling last limit/2, so a
 * command printing gigabytes costs no more than one printing `limit` characters.
 */
export function createOutputCollector(limit: number): OutputCollector {
  const size = split(limit);
  let head = '';
  let tail = '';
  let total = 0;

  return {
    push(chunk) {
      total += chunk.length;
      let rest = chunk;
      if (head.length < size.head) {
        const take = size.head - head.length;
        head += rest.slice(0, take);
        rest = rest.slice(take);
      }
      if (rest === '' || size.tail === 0) return;
      tail = rest.length >= size.tail ? rest.slice(-size.tail) : (tail + rest).slice(-size.tail);
    },
    text() {
      if (total <= size.head + size.tail) return head + tail;
      return assemble(head, tail, total);
    },
    omitted() {
      return Math.max(0, total - head.length - tail.length);
    },
  };
}
