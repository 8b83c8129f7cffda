/**
 * Cuts `text` to at most `max` characters, saying how much was cut so that a reader (the summariser)
 * knows the text is incomplete rather than taking the cut for the end of it.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max);
  return `${text.slice(0, keep)}… [${text.length - keep} more chars]`;
}

/**
 * Keeps the head and the tail of `text` within exactly `max` characters (when `max` leaves room for
 * the marker). The tail gets two thirds: the latest turns are the closest to the current state.
 */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const limit = Math.max(0, max);
  const marker = (omitted: number) => `\n\n[… ${omitted} chars omitted …]\n\n`;
  // The marker's length depends on the count it reports; the widest count bounds it.
  const room = limit - marker(text.length).length;
  if (room <= 0) return text.slice(text.length - limit);
  const head = Math.floor(room / 3);
  const tail = room - head;
  return `${text.slice(0, head)}${marker(text.length - head - tail)}${text.slice(text.length - tail)}`;
}

/** Whitespace runs (newlines included) as one space: for one-line list entries. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
