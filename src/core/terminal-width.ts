/**
 * How many columns text takes on a terminal, and the text cut to a number of columns. A live line
 * wider than the terminal wraps onto a second row, and the cursor movement that redraws it in place
 * then counts one row too few: the old lines pile up on the screen. So live lines are cut to the
 * width, never in the middle of a character a person sees (a grapheme: a letter with its accents, an
 * emoji with its modifiers) or of an escape sequence.
 */

/** Escape sequences (CSI, OSC/DCS/… strings, two-character ones): no columns, never cut. */
const ESCAPE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it finds.
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -/]*[0-~]/gu;

/**
 * Characters a terminal shows two columns wide: East Asian wide and fullwidth ones (CJK ideographs,
 * kana, Hangul, their punctuation and fullwidth forms, not the halfwidth forms) and emoji shown as
 * pictures (by default, with the emoji variation selector, or as a flag).
 */
const WIDE =
  /^(?:(?![\uFF61-\uFFDC\uFFE8-\uFFEE])[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}\p{Script=Yi}\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]|\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|\p{Regional_Indicator}{2})/u;
/** Graphemes that take no column: controls, format characters (zero-width space, joiners) alone. */
const ZERO_WIDTH = /^[\p{Cc}\p{Cf}\p{Mn}\p{Me}]+$/u;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function graphemeWidth(grapheme: string): number {
  if (ZERO_WIDTH.test(grapheme)) return 0;
  return WIDE.test(grapheme) ? 2 : 1;
}

type Piece = { text: string; width: number; escape?: true };

/** `text` as escape sequences (width 0) and graphemes, in order. */
function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let at = 0;
  const visible = (part: string) => {
    for (const { segment } of graphemes.segment(part))
      out.push({ text: segment, width: graphemeWidth(segment) });
  };
  for (const match of text.matchAll(ESCAPE)) {
    visible(text.slice(at, match.index));
    out.push({ text: match[0], width: 0, escape: true });
    at = match.index + match[0].length;
  }
  visible(text.slice(at));
  return out;
}

/** Columns `text` (one line) takes on a terminal. */
export function displayWidth(text: string): number {
  return pieces(text).reduce((sum, piece) => sum + piece.width, 0);
}

const ELLIPSIS = '…';

/**
 * `text` (one line) cut to at most `columns` columns, with an ellipsis where it was cut. Escape
 * sequences past the cut are kept (they take no room, and one may end a colour begun before it).
 */
export function fitToWidth(text: string, columns: number): string {
  const parts = pieces(text);
  const total = parts.reduce((sum, piece) => sum + piece.width, 0);
  if (total <= columns) return text;
  if (columns < 1)
    return parts
      .filter((piece) => piece.escape)
      .map((piece) => piece.text)
      .join('');
  const room = columns - 1; // one column for the ellipsis
  let used = 0;
  let cut = false;
  let out = '';
  for (const piece of parts) {
    if (!cut && used + piece.width > room) {
      out += ELLIPSIS;
      cut = true;
    }
    if (!cut) {
      out += piece.text;
      used += piece.width;
    } else if (piece.escape) out += piece.text;
  }
  return out;
}
