/**
 * A destination a sandboxed process asked the egress proxy for (`host:port`), as issueloop shows it.
 * The process chose the text, so it is untrusted: every character outside what a host name, an IP
 * address and a port use (letters, digits, `.`, `-`, `_`, `:`, `[`, `]`) and the escape's own `\{}`
 * is written as `\u{…}`, so no Markdown, HTML, mention, line break, bidi control or escape sequence
 * survives, and it is capped. A real destination is shown unchanged, and shown text again unchanged
 * (the session cleans what it reports, and every renderer cleans what it is given).
 */
const MAX_DESTINATION = 200;

export function safeDestination(text: string): string {
  const shown = [...text]
    .map((c) => (/^[A-Za-z0-9._:[\]\\{}-]$/.test(c) ? c : `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`))
    .join('');
  // Cut only what is longer than the cap and its mark, so that shown text is shown unchanged.
  if (shown.length <= MAX_DESTINATION + 3) return shown;
  return `${shown.slice(0, MAX_DESTINATION).replace(/\\(?:u(?:\{[0-9a-f]*)?)?$/, '')}...`;
}

/** The three sandboxes a session has; anything else is shown as `unknown`. */
export function safeRole(role: string): 'commands' | 'setup' | 'claude' | 'unknown' {
  return role === 'commands' || role === 'setup' || role === 'claude' ? role : 'unknown';
}

/** A count as shown: a positive safe integer, else `?`. */
export function safeCount(count: number): string {
  return Number.isSafeInteger(count) && count > 0 ? String(count) : '?';
}

/** `registry.npmjs.org:443 ×3 (setup)`: one refused destination in plain text. */
export function describeBlocked(blocked: { role: string; destination: string; count: number }): string {
  return `${safeDestination(blocked.destination)} ×${safeCount(blocked.count)} (${safeRole(blocked.role)})`;
}

/** Refused destinations redacted (a host name can carry a secret) and cleaned, as a session reports them. */
export function cleanBlocked<T extends { destination: string }>(
  blocked: readonly T[],
  redact: (text: string) => string,
): T[] {
  return blocked.map((b) => ({ ...b, destination: safeDestination(redact(b.destination)) }));
}
