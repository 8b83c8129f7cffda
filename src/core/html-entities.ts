/**
 * Character references as GitHub renders them, and the characters a reader does not see: the one
 * decoder the neutraliser (what GitHub's reference and mention filters read) and the redactor (what
 * a reader of GitHub sees and copies) share, so that they cannot disagree on what `&#35;`,
 * `&lowbar;` or `&#x7a` stand for.
 *
 * GitHub's Markdown decodes `&#N;`, `&#xH;` and the HTML5 named references; raw HTML in a comment
 * goes through an HTML parser, which also takes a numeric reference without its `;` and the legacy
 * names (`&amp`, `&lt`, `&nbsp`) without theirs. Whatever could be one is read as one: a needless
 * decode costs a redaction or a word joiner, a missed one a secret in clear or a closed issue.
 */

/**
 * Named references that render as a character a secret, a token, a URL, a reference or a mention is
 * made of (every HTML5 name for an ASCII character), or as one a reader does not see.
 */
const NAMED: Readonly<Record<string, string>> = {
  Tab: '\t',
  NewLine: '\n',
  excl: '!',
  quot: '"',
  QUOT: '"',
  num: '#',
  dollar: '$',
  percnt: '%',
  amp: '&',
  AMP: '&',
  apos: "'",
  lpar: '(',
  rpar: ')',
  ast: '*',
  midast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  lt: '<',
  LT: '<',
  equals: '=',
  gt: '>',
  GT: '>',
  quest: '?',
  commat: '@',
  lsqb: '[',
  lbrack: '[',
  bsol: '\\',
  rsqb: ']',
  rbrack: ']',
  Hat: '^',
  lowbar: '_',
  UnderBar: '_',
  grave: '`',
  DiacriticalGrave: '`',
  lcub: '{',
  lbrace: '{',
  verbar: '|',
  vert: '|',
  VerticalLine: '|',
  rcub: '}',
  rbrace: '}',
  fjlig: 'fj',
  nbsp: '\u00a0',
  NonBreakingSpace: '\u00a0',
  hyphen: '\u2010',
  dash: '\u2010',
  minus: '\u2212',
  shy: '\u00ad',
  ZeroWidthSpace: '\u200b',
  NegativeVeryThinSpace: '\u200b',
  NegativeThinSpace: '\u200b',
  NegativeMediumSpace: '\u200b',
  NegativeThickSpace: '\u200b',
  zwnj: '\u200c',
  zwj: '\u200d',
  lrm: '\u200e',
  rlm: '\u200f',
  NoBreak: '\u2060',
  ApplyFunction: '\u2061',
  af: '\u2061',
  InvisibleTimes: '\u2062',
  it: '\u2062',
  InvisibleComma: '\u2063',
  ic: '\u2063',
};

/** `&Aopf;`, `&ascr;`, `&Zfr;`: a letter in a mathematical style, read as the letter (it folds to it). */
const STYLED_LETTER = /^[A-Za-z](?:opf|scr|fr)$/;
/** The names HTML takes without their `;` (those of them that matter here). */
const LEGACY = ['amp', 'AMP', 'lt', 'LT', 'gt', 'GT', 'quot', 'QUOT', 'nbsp', 'shy'];
const REFERENCE = /&(?:#([0-9]+)|#[xX]([0-9A-Fa-f]+)|([A-Za-z][A-Za-z0-9]{0,31}))(;?)/y;

/**
 * The character reference at `at` in `text`, if there is one: what it renders as (folded like a
 * literal character, below) and how many characters of `text` it takes.
 */
export function entityAt(text: string, at: number): { char: string; length: number } | undefined {
  REFERENCE.lastIndex = at;
  const match = REFERENCE.exec(text);
  if (!match) return undefined;
  const [whole, decimal, hex, name, semicolon] = match;
  if (name === undefined) {
    const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return { char: foldedText(valid ? String.fromCodePoint(code) : '\ufffd'), length: whole.length };
  }
  if (semicolon === ';') {
    const char = NAMED[name] ?? (STYLED_LETTER.test(name) ? name[0] : undefined);
    if (char !== undefined) return { char, length: whole.length };
  }
  // Without its `;` (or not a name at all): the longest legacy name it starts with, as HTML reads it.
  let best = '';
  for (const legacy of LEGACY) if (name.startsWith(legacy) && legacy.length > best.length) best = legacy;
  return best === '' ? undefined : { char: NAMED[best] ?? '', length: 1 + best.length };
}

/** Dashes that render as a hyphen-minus (`&hyphen;`, `&minus;`). */
const HYPHENS = /^[\u2010-\u2012\u2212\ufe63]$/;

/**
 * A character as the ASCII it shows as, when it is a compatibility form of ASCII (full-width `ｚ`,
 * mathematical `𝐳`, `ﬁ`) or a hyphen; any other character as itself.
 */
export function foldedText(char: string): string {
  if (char < '\u0080') return char;
  if (HYPHENS.test(char)) return '-';
  const plain = char.normalize('NFKC');
  return /^[!-~]+$/.test(plain) ? plain : char;
}

/**
 * Characters that render as nothing: default-ignorable code points (zero-width space and joiners,
 * U+2060, U+FEFF, soft hyphen, variation selectors, the combining grapheme joiner, tags) and every
 * other format character (category Cf).
 */
export const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/u;
export const INVISIBLE_SOURCE = String.raw`\p{Default_Ignorable_Code_Point}\p{Cf}`;
/** Characters `foldedText` may change: the blocks of compatibility forms of ASCII, and the dashes. */
export const FOLDABLE_SOURCE = String.raw`\u00aa\u00b2\u00b3\u00b9\u00ba\u2010-\u2012\u2070-\u209f\u2100-\u214f\u2460-\u24ff\u2212\ufb00-\ufb06\ufe50-\ufe6b\uff01-\uff5e\u{1d400}-\u{1d7ff}`;
