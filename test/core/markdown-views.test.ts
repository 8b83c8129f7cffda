import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../src/core/redact.js';
import { markdownViews } from '../../src/core/rendered-view.js';
import { renderedText } from '../../src/emulators/github/rendered-text.js';

/**
 * The two Markdown readings of rendered-view.ts: one keeps every `_` and link destination (a secret
 * with `_` in it, obfuscated with `**`), one drops those that may render as nothing (a secret
 * without `_`, obfuscated with `_` emphasis or a link between its letters). A match in either goes.
 */
const SECRET = 'zz-0123456789abcdef-token';
/** A configured secret with `_` next to punctuation: dropping every `_` would lose it. */
const UNDERSCORED = 'ab-_cd0123456789efgh';
const GHP = `ghp_${'A1b2C3d4'.repeat(3)}`;
const redact = createRedactor([SECRET, UNDERSCORED]);
const md = (text: string) => redact(`see ${text} here`, { markdown: true });

describe('Markdown redaction: two readings', () => {
  it('finds a secret containing _ obfuscated with ** (the reading that keeps _)', () => {
    for (const text of ['ab-_cd01**23**456789efgh', 'ab-**_**cd0123456789efgh', '**ab**-_cd0123456789efgh'])
      expect(md(text), text).toMatch(/^see (\*\*)?\[REDACTED\] here$/);
    for (const text of [`gh**p_**${GHP.slice(4)}`, `ghp_**${GHP.slice(4, 9)}**${GHP.slice(9)}`])
      expect(md(text), text).toBe(`see ${REDACTED} here`);
  });

  it('finds a secret without _ obfuscated with _ emphasis (the reading that drops it)', () => {
    const hidden = [
      'zz-0123456789abcdef-_token_',
      'zz-_0123456789abcdef_-token',
      '_zz_-0123456789abcdef-token',
      'zz-__0123456789abcdef__-token',
      'zz-0123456789abcdef-*_token_*',
    ];
    for (const text of hidden) {
      const out = md(text);
      // Markup outside the secret's first and last characters may stay: it shows nothing.
      expect(out, text).toMatch(/^see [_*]{0,2}\[REDACTED\][_*]{0,2} here$/);
      expect(renderedText(out).text).not.toContain(SECRET);
    }
    // A token in emphasis: `_` before it leaves no word boundary for the token pattern in the text.
    expect(md(`_${GHP}_`)).toBe(`see _${REDACTED}_ here`);
    expect(md('sk-_ant_-api03-abcdefghijklmnop')).toBe(`see ${REDACTED} here`);
  });

  it('finds a secret split by a link: inline, full, collapsed or shortcut reference', () => {
    const hidden = [
      'zz-01[23](https://example.invalid/)456789abcdef-token',
      'zz-01[23](<https://example.invalid/a b> "title")456789abcdef-token',
      "zz-01[23](https://example.invalid/(x) 'title')456789abcdef-token",
      'zz-01[23][r]456789abcdef-token\n\n[r]: https://example.invalid/',
      'zz-01[23][]456789abcdef-token\n\n[23]: https://example.invalid/',
      'zz-01[23]456789abcdef-token\n\n[23]: https://example.invalid/',
    ];
    for (const text of hidden) {
      const out = md(text);
      expect(out, text).not.toMatch(/zz-01|456789/);
      expect(renderedText(out, { links: true }).text).not.toContain(SECRET);
      expect(renderedText(out).text).not.toContain(SECRET);
    }
  });

  it('still finds an encoded secret inside a link destination (the first reading keeps it)', () => {
    const out = md('[x](https://example.invalid/?q=%7A%7A-0123456789abcdef-token)');
    expect(out).not.toContain('%7A%7A-0123');
  });

  it('leaves ordinary Markdown alone: snake_case, links, emphasis', () => {
    const text =
      'a snake_case name, _emphasis_, [a link](https://example.invalid/ "t") and [ref][r] **bold**';
    expect(redact(text, { markdown: true })).toBe(text);
    expect(redact(`${SECRET.slice(0, 7)}_${SECRET.slice(7)}`, { markdown: true })).toBe(
      `${SECRET.slice(0, 7)}_${SECRET.slice(7)}`,
    );
  });

  it('two views only in Markdown, each mapping back to the original', () => {
    const [kept, dropped] = markdownViews('zz-_01[23](https://x.invalid/)_x');
    expect(kept?.text).toBe('zz-_0123(https://x.invalid/)_x');
    expect(dropped?.text).toBe('zz-0123x');
    expect(dropped?.original(3, 7)).toEqual([4, 9]);
    expect(dropped?.original(7, 8)).toEqual([31, 32]);
  });

  it("regression: a stray ] before an inline link is not a reference link's tail (it kept the link's destination and dropped its text)", () => {
    // fast-check's counterexample: `][5](…)` read as the reference tail `][5]`, so no view was
    // `zz-0123456789…` while GitHub shows the link's text in place.
    expect(md('zz-01234][5](https://example.invalid/)6789abcdef-token')).toBe(`see ${REDACTED} here`);
    expect(markdownViews('a][b](https://x.invalid/)c')[1]?.text).toBe('abc');
    // A reference link's tail is still dropped.
    expect(markdownViews('a[b][ref]c')[1]?.text).toBe('abc');
  });

  it('property: _ next to punctuation, *, ~ and link brackets anywhere never leave the secret readable', () => {
    const markup = fc.constantFrom('**', '*', '~~', '[', ']', '](https://example.invalid/)', '`');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(SECRET.length), markup), { maxLength: 4 }),
        fc.boolean(),
        (cuts, under) => {
          const chars = [...SECRET];
          for (const [at, mark] of [...cuts].sort((a, b) => b[0] - a[0])) chars.splice(at, 0, mark);
          let text = chars.join('');
          // `_` where CommonMark may read it as emphasis: around the secret's `-`.
          if (under) text = text.replaceAll('-', '-_').replace(/-_([^-]*)$/, '-_$1_');
          const out = md(text);
          expect(renderedText(out, { links: true }).text).not.toContain(SECRET);
          expect(renderedText(out).text).not.toContain(SECRET);
        },
      ),
      { numRuns: 300 },
    );
  });
});
