import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, redact as patternsOnly, REDACTED } from '../../src/core/redact.js';
import { renderedView } from '../../src/core/rendered-view.js';

const SECRET = 'zz-0123456789abcdef-token';
const redact = createRedactor([SECRET]);

const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');
const every = (text: string, upper = false) =>
  [...text].map((c) => `%${upper ? hex(c).toUpperCase() : hex(c)}`).join('');

describe('percent-decoded view', () => {
  it('maps each decoded character to the span it came from, through every layer', () => {
    const view = renderedView('a%2562c');
    expect(view?.text).toBe('abc');
    expect(view?.original(0, 1)).toEqual([0, 1]);
    expect(view?.original(1, 2)).toEqual([1, 6]);
    expect(view?.original(1, 3)).toEqual([1, 7]);
    expect(view?.original(2, 3)).toEqual([6, 7]);
    expect(renderedView('%41%2541x')?.original(0, 3)).toEqual([0, 9]);
    expect(renderedView('%41%2541x')?.original(1, 2)).toEqual([3, 8]);
  });

  it('decodes a UTF-8 run as its characters, each mapped to all of its escapes', () => {
    const view = renderedView('a%C3%A4b%E2%82%ACc%FF');
    expect(view?.text).toBe('aäb€c\u00ff');
    expect(view?.original(1, 2)).toEqual([1, 7]);
    expect(view?.original(3, 4)).toEqual([8, 17]);
    expect(view?.original(5, 6)).toEqual([18, 21]);
  });

  it('property: each decoded character maps back to exactly the piece it was written as', () => {
    const piece = fc.tuple(
      // No '%': a literal one before hex digits is an escape to the next layer, as it should be.
      fc.constantFrom('a', 'Z', '-', '_', 'ä', '€', '7'),
      fc.constantFrom('literal', 'once', 'twice'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (more) => {
        // One encoded piece at least, so that there is a view.
        const pieces: Array<[string, string]> = [['a', 'once'], ...more];
        const written = pieces.map(([char, how]) => {
          if (how === 'literal') return char;
          const once = encodeURIComponent(char).replace(/[-_]/, (c) => `%${hex(c)}`) || char;
          const encoded = once.startsWith('%') ? once : `%${hex(char)}`;
          return how === 'twice' ? encoded.replace(/%/g, '%25') : encoded;
        });
        const view = renderedView(written.join(''));
        expect(view?.text).toBe(pieces.map(([char]) => char).join(''));
        let at = 0;
        for (const [i, text] of written.entries()) {
          expect(view?.original(i, i + 1)).toEqual([at, at + text.length]);
          at += text.length;
        }
      }),
    );
  });

  it('is undefined for text with nothing percent-encoded', () => {
    expect(renderedView('50% done, 100%')).toBeUndefined();
  });
});

describe('regression: a percent-encoded secret passed the redactor', () => {
  const attacks: Record<string, string> = {
    'every character, lower-case hex': every(SECRET),
    'every character, upper-case hex': every(SECRET, true),
    'mixed with literal characters': [...SECRET].map((c, i) => (i % 2 ? c : every(c))).join(''),
    'double-encoded': every(SECRET).replace(/%/g, '%25'),
    'hex digits of the escape encoded themselves': SECRET.replace(/[a-z]/g, (c) => `%${every(hex(c))}`),
    'a token shape, encoded': every(`ghs_${'k9'.repeat(18)}`),
  };
  for (const [how, form] of Object.entries(attacks)) {
    it(`removes it written ${how}`, () => {
      const out = redact(`title: done ${form} (see)`);
      expect(out).toBe(`title: done ${REDACTED} (see)`);
    });
  }

  it('removes a secret whose one encoded character is its last, deep inside a long text', () => {
    const filler = 'log line with 100% of nothing encoded\n'.repeat(300);
    const form = `${SECRET.slice(0, -1)}${every(SECRET.slice(-1))}`;
    expect(redact(`${filler}${form}${filler}`)).toBe(`${filler}${REDACTED}${filler}`);
  });

  it('removes the whole of a long token whose first character alone is encoded', () => {
    const token = `ghs_${'k9'.repeat(200)}`;
    expect(redact(`x ${every('g')}${token.slice(1)} y`)).toBe(`x ${REDACTED} y`);
  });

  it('removes a password or a key that an encoded URL carries, and leaves literal ones to the literal passes', () => {
    expect(patternsOnly('next=https%3A%2F%2Fdeploy%3As3cretpass%40host%2Fx done')).toBe(
      `next=${REDACTED}host%2Fx done`,
    );
    expect(patternsOnly('go https%3A%2F%2Fx.io%2F%3Fapi_key%3Dabc123 now')).toBe(
      `go https%3A%2F%2Fx.io%2F${REDACTED} now`,
    );
    expect(patternsOnly('authorization: Bearer abc.def and a%20b')).toBe(
      `authorization: Bearer ${REDACTED} and a%20b`,
    );
    expect(patternsOnly('GET /x?access_token=abc%2Bdef')).toBe(`GET /x?access_token=${REDACTED}`);
  });

  it('removes a non-ASCII secret percent-encoded as UTF-8, mixed with literal characters', () => {
    const secret = 'pässwörd-grün-42';
    const encoded = encodeURIComponent(secret).replace('%C3%B6', 'ö').replace('r', '%72');
    expect(createRedactor([secret])(`pw=${encoded};`)).toBe(`pw=${REDACTED};`);
  });

  it('keeps the text around an encoded secret and the percent-encoding that is not one', () => {
    const text = `GET /search?q=a%20b&x=${every(SECRET)}&page=2%25`;
    expect(redact(text)).toBe(`GET /search?q=a%20b&x=${REDACTED}&page=2%25`);
    expect(patternsOnly('q=a%20b%2Cc')).toBe('q=a%20b%2Cc');
  });

  it('property: finds the secret in any mix of literal, encoded and double-encoded characters', () => {
    const style = fc.constantFrom('literal', 'lower', 'upper', 'double');
    fc.assert(
      fc.property(
        fc.array(style, { minLength: SECRET.length, maxLength: SECRET.length }),
        fc.string(),
        (styles, around) => {
          const written = [...SECRET]
            .map((c, i) => {
              const s = styles[i];
              if (s === 'literal') return c;
              const once = every(c, s === 'upper');
              return s === 'double' ? once.replace('%', '%25') : once;
            })
            .join('');
          const out = redact(`${around}${written}${around}`);
          expect(out).toContain(REDACTED);
          expect(renderedView(out)?.text ?? out).not.toContain(SECRET);
        },
      ),
    );
  });
});
