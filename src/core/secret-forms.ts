/**
 * The forms a known secret takes when someone tries to carry it out: the redactor removes every one
 * of them, and the diff scan refuses a change that adds one. An attacker agent passed the literal
 * filter with base64, hex, URL-encoded, reversed and line-split forms of the token.
 */
import { renderedView } from './rendered-view.js';

/** Derived forms of shorter values would match ordinary text. */
export const MIN_DERIVED_LENGTH = 8;

export interface SecretForm {
  kind: 'literal' | 'json' | 'base64' | 'base64url' | 'hex' | 'url-encoded' | 'reversed';
  text: string;
}

function toBase64Url(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_');
}

/**
 * The base64 characters that depend on the secret's bytes alone, for each of the three byte
 * alignments it can have inside a longer encoded text (`base64("x-access-token:" + token)` puts it at
 * offset 15): with `k` bytes before it, the first characters mix in those bytes and the last one the
 * bytes after, so only the middle is stable.
 */
function base64Cores(secret: Buffer): string[] {
  const cores: string[] = [];
  for (const k of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(k), secret]).toString('base64');
    const start = k === 0 ? 0 : k === 1 ? 2 : 3;
    const end = Math.floor(((k + secret.length) * 8) / 6);
    const core = encoded.slice(start, end);
    if (core.length >= MIN_DERIVED_LENGTH) cores.push(core);
  }
  return cores;
}

/** Every form of `secret` worth looking for, without duplicates. */
export function secretForms(secret: string): SecretForm[] {
  const forms: SecretForm[] = [{ kind: 'literal', text: secret }];
  const json = JSON.stringify(secret).slice(1, -1);
  if (json !== secret) forms.push({ kind: 'json', text: json });
  if (secret.length >= MIN_DERIVED_LENGTH) {
    const bytes = Buffer.from(secret, 'utf8');
    for (const core of base64Cores(bytes)) {
      forms.push({ kind: 'base64', text: core });
      const url = toBase64Url(core);
      if (url !== core) forms.push({ kind: 'base64url', text: url });
    }
    const hex = bytes.toString('hex');
    forms.push({ kind: 'hex', text: hex }, { kind: 'hex', text: hex.toUpperCase() });
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) forms.push({ kind: 'url-encoded', text: encoded });
    const reversed = [...secret].reverse().join('');
    if (reversed !== secret) forms.push({ kind: 'reversed', text: reversed });
  }
  // A secret with a character that renders otherwise (`²`, `&amp;`, a zero-width joiner) is also
  // looked for as it renders: the redactor and the diff scan match in the rendered view.
  const shown = renderedView(secret)?.text;
  if (shown !== undefined && shown.length >= MIN_DERIVED_LENGTH) forms.push({ kind: 'literal', text: shown });
  const byText = new Map<string, SecretForm>();
  for (const form of forms) if (!byText.has(form.text)) byText.set(form.text, form);
  return [...byText.values()];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A line break with the indentation after it (and a diff's `+` at the start of an added line). */
const BREAK = '(?:\\r?\\n\\+?[ \\t]*)?';

/**
 * One pattern for all the forms of all the secrets, longest first, each allowed to be split across
 * lines anywhere (`base64` wraps at 76 columns; a file can carry a token over two lines).
 */
export function secretsPattern(
  forms: readonly SecretForm[],
  options: { split: boolean },
): RegExp | undefined {
  const texts = [...new Set(forms.map((form) => form.text))].sort((a, b) => b.length - a.length);
  if (texts.length === 0) return undefined;
  const alternatives = texts.map((text) =>
    options.split ? [...text].map(escapeRegExp).join(BREAK) : escapeRegExp(text),
  );
  return new RegExp(alternatives.join('|'), 'g');
}
