/**
 * Text for a person's terminal. Whatever issueloop prints may carry text from GitHub (check names,
 * issue titles, comments), the model or the ledger, and a terminal acts on what it is sent: a check
 * name holding `ESC ] 0;pwned BEL ESC [ 2 J` set the terminal's title and cleared the screen when
 * `issueloop status` printed it. So every escape sequence (CSI, OSC, DCS, SOS, PM, APC, and the
 * two-character ones, in their 7-bit and 8-bit forms) goes whole, then every other C0 and C1 control
 * but the line feed and the tab, and the bidi controls that reorder what is shown (U+202A–U+202E,
 * U+2066–U+2069, U+200E, U+200F, U+061C).
 *
 * JSON output keeps its data: `terminalJson` writes those characters as `\uXXXX` escapes, which
 * parse back to the same strings and which a terminal shows as text.
 */

/** CSI: parameters, intermediates, one final byte. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CSI = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]/g;
/** OSC, DCS, SOS, PM, APC: a string up to BEL or ST (or the end of the line, when unterminated). */
const STRING_SEQUENCE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c\n]*(?:\u0007|\u001b\\|\u009c)?/g;
/** The same, an unterminated one swallowing the rest of the text as a terminal would. */
const STRING_SEQUENCE_TO_END =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)/g;
/** The other escape sequences: ESC, intermediates, one final byte. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const OTHER_ESCAPE = /\u001b[ -/]*[0-~]/g;
/** C0 and C1 controls but LF and TAB, DEL, and the bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw that a terminal would act on (C0 it escapes already), and the JS line separators. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * `text` without escape sequences, controls (but `\n` and `\t`) and bidi controls. An unterminated
 * string sequence ends at the line's end for output a person reads line by line; `unterminated:
 * 'text'` swallows the rest, as a terminal would, for text nobody should see past it (a check's log).
 */
export function forTerminal(text: string, options: { unterminated?: 'line' | 'text' } = {}): string {
  if (!UNSAFE_TEST.test(text)) return text;
  return withoutEscapeSequences(text, options).replace(UNSAFE, '');
}

/** `text` without its escape sequences, whole (the controls outside them are left to the caller). */
export function withoutEscapeSequences(
  text: string,
  options: { unterminated?: 'line' | 'text' } = {},
): string {
  const strings = options.unterminated === 'text' ? STRING_SEQUENCE_TO_END : STRING_SEQUENCE;
  return text.replace(strings, '').replace(CSI, '').replace(OTHER_ESCAPE, '');
}

const UNSAFE_TEST = new RegExp(UNSAFE.source);

/** `JSON.stringify` whose output a terminal shows as text: what it would leave raw is escaped as `\uXXXX`. */
export function terminalJson(
  value: unknown,
  replacer?: (this: unknown, key: string, value: unknown) => unknown,
  space?: number,
): string {
  return jsonTextForTerminal(JSON.stringify(value, replacer, space));
}

/** JSON text with what a terminal would act on escaped; raw, such characters can only be inside its strings. */
export function jsonTextForTerminal(json: string): string {
  return json.replace(RAW_IN_JSON, escapeChar);
}

function escapeChar(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
