import { describe, expect, it } from 'vitest';
import { addedLines, describeHits, findSecrets } from '../../src/session/secret-scan.js';

const TOKEN = 'ghs_diffScanToken0123456789abcdefghijklm';
const diff = (file: string, start: number, lines: string[]) =>
  [
    `diff --git a/${file} b/${file}`,
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -0,0 +${start},${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
  ].join('\n');

describe('addedLines', () => {
  it('numbers the added lines of each hunk in the new file and skips removed ones', () => {
    const text = `${diff('a.txt', 3, ['x', 'y'])}\n@@ -9 +10 @@\n-old\n+new`;
    expect(addedLines(text)).toEqual([
      { file: 'a.txt', line: 3, text: 'x' },
      { file: 'a.txt', line: 4, text: 'y' },
      { file: 'a.txt', line: 10, text: 'new' },
    ]);
  });
});

describe('findSecrets', () => {
  it('finds a known secret in any form, also split over two added lines, and says where, never what', () => {
    const b64 = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    const text = [
      diff('src/a.js', 1, ['const ok = 1;', `const h = "${b64}";`]),
      diff('b.txt', 7, [TOKEN.slice(0, 15), TOKEN.slice(15)]),
      diff('c.txt', 1, [Buffer.from(TOKEN).toString('hex')]),
    ].join('\n');
    const hits = findSecrets(text, [TOKEN]);
    expect(hits).toEqual(
      expect.arrayContaining([
        { file: 'src/a.js', line: 2, kind: 'known secret (base64)' },
        { file: 'b.txt', line: 7, kind: 'known secret (literal)' },
        { file: 'c.txt', line: 1, kind: 'known secret (hex)' },
      ]),
    );
    expect(describeHits(hits)).not.toContain(TOKEN.slice(4, 14));
  });

  it("finds credentials of well-known shapes that are nobody's known secret", () => {
    const shapes = [
      `ghp_${'a'.repeat(36)}`,
      `github_pat_${'B'.repeat(60)}`,
      `sk-ant-api03-${'c'.repeat(40)}`,
      `AKIA${'D'.repeat(16)}`,
      'xoxb-1234567890-abcdefghij',
      '-----BEGIN OPENSSH PRIVATE KEY-----',
    ];
    const hits = findSecrets(diff('leak.txt', 1, shapes), []);
    expect(hits.map((h) => h.line)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a GitHub token or AWS key id followed by an underscore is still found in the diff', () => {
    const lines = [`const t = "ghp_${'a'.repeat(36)}_suffix";`, `AKIA${'D'.repeat(16)}_prod`, 'plain_text'];
    const hits = findSecrets(diff('leak.txt', 1, lines), []);
    expect(hits).toEqual([
      { file: 'leak.txt', line: 1, kind: 'GitHub token' },
      { file: 'leak.txt', line: 2, kind: 'AWS access key id' },
    ]);
  });

  it('passes an ordinary diff, and a secret the diff removes', () => {
    const text = `${diff('a.js', 1, ['export const greet = () => "hello";'])}\n@@ -5 +5,0 @@\n-${TOKEN}`;
    expect(findSecrets(text, [TOKEN])).toEqual([]);
  });
});

describe('regression: a percent-encoded secret in the diff', () => {
  const encode = (text: string) =>
    [...text].map((c, i) => (i % 3 === 0 ? c : `%${c.charCodeAt(0).toString(16).toUpperCase()}`)).join('');

  it('finds a known secret with its characters percent-encoded, also double-encoded, on its line', () => {
    const text = diff('notes.md', 4, [
      'harmless %20 line',
      `see ${encode(TOKEN)}`,
      `and ${encode(TOKEN).replace(/%/g, '%25')}`,
    ]);
    const hits = findSecrets(text, [TOKEN]);
    expect(hits).toContainEqual({ file: 'notes.md', line: 5, kind: 'known secret (encoded)' });
    expect(hits).toContainEqual({ file: 'notes.md', line: 6, kind: 'known secret (encoded)' });
    expect(hits.some((h) => h.line === 4)).toBe(false);
  });

  it('names a literal secret once, as literal, on a line that also has percent-encoding', () => {
    const hits = findSecrets(diff('a.txt', 1, [`x%20y ${TOKEN}`]), [TOKEN]);
    expect(hits.filter((h) => h.kind.startsWith('known secret'))).toEqual([
      { file: 'a.txt', line: 1, kind: 'known secret (literal)' },
    ]);
  });

  it('finds a credential shape that is nobody’s known secret, percent-encoded', () => {
    const key = `sk-ant-api03-${'Ab3xY'.repeat(6)}`;
    const hits = findSecrets(diff('a.txt', 1, [encode(key)]), []);
    expect(hits).toEqual([{ file: 'a.txt', line: 1, kind: 'Anthropic key' }]);
  });
});
