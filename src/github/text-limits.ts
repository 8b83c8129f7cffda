/** Shared by the texts issueloop writes to GitHub (tracking comment, pull request body). */

/** Collapses every run of whitespace, control and line/paragraph separators to one space. */
export function oneLine(text: string): string {
  return text.replace(/[\s\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim();
}

/** At most `max` UTF-16 units, never splitting a surrogate pair, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 2] ?? '') ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}
