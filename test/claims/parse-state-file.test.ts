import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseStateFile } from '../../src/claims/parse-state-file.js';
import { CorruptStateError } from '../../src/core/errors.js';

const format = {
  schema: z.strictObject({ version: z.literal(1), items: z.array(z.int()) }),
  version: 1,
  what: 'an items file',
  corrupt: (file: string, detail: string) => new CorruptStateError(file, detail, 'Delete it.'),
};
const parse = (text: string) => parseStateFile('/state/items.json', text, format);

describe('parseStateFile', () => {
  it('gives the validated data, and names the file, what is wrong and the fix otherwise', () => {
    expect(parse('{"version":1,"items":[1,2]}')).toEqual({ version: 1, items: [1, 2] });
    expect(() => parse('  ')).toThrow('the file is empty');
    expect(() => parse('{"version":1,')).toThrow(/invalid JSON/);
    expect(() => parse('{"version":1,"items":["a"]}')).toThrow(/not an items file: items\[0\]/);
    expect(() => parse('{"version":1,"items":["a"]}')).toThrow(CorruptStateError);
  });

  it('a version above its own says to upgrade, not that the file is corrupt', () => {
    const newer = (() => {
      try {
        parse('{"version":2,"items":[]}');
      } catch (err) {
        return err as CorruptStateError;
      }
      return undefined;
    })();
    expect(newer).toBeInstanceOf(CorruptStateError);
    expect(newer?.message).toContain('format version 2 was written by a newer issueloop');
    expect(newer?.message).toContain('Upgrade issueloop');
  });
});
