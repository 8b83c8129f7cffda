import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileDurably } from '../../src/core/write-file-durably.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-durable-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileDurably', () => {
  it('replaces the file and leaves no temp file behind', async () => {
    const file = join(dir, 'a.json');
    await writeFile(file, 'old');
    await writeFileDurably(file, 'new');
    expect(await readFile(file, 'utf8')).toBe('new');
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('writes bytes exactly', async () => {
    const file = join(dir, 'b.bin');
    const bytes = Uint8Array.from([0xff, 0x00, 0xfe]);
    await writeFileDurably(file, bytes);
    expect([...(await readFile(file))]).toEqual([0xff, 0x00, 0xfe]);
  });

  it('calls beforeRename with the complete temp file beside the untouched target', async () => {
    const file = join(dir, 'e.json');
    await writeFile(file, 'old');
    const seen: string[] = [];
    await writeFileDurably(file, 'new content', {
      beforeRename: async () => {
        const temps = (await readdir(dir)).filter((f) => f.startsWith('e.json.') && f.endsWith('.tmp'));
        for (const t of temps) seen.push(await readFile(join(dir, t), 'utf8'));
        seen.push(await readFile(file, 'utf8'));
      },
    });
    expect(seen).toEqual(['new content', 'old']);
    expect(await readFile(file, 'utf8')).toBe('new content');
  });

  it('leaves the old content and no temp file when beforeRename throws', async () => {
    const file = join(dir, 'c.json');
    await writeFile(file, 'old');
    await expect(
      writeFileDurably(file, 'new', {
        beforeRename: async () => {
          throw new Error('lock lost');
        },
      }),
    ).rejects.toThrow('lock lost');
    expect(await readFile(file, 'utf8')).toBe('old');
    expect((await readdir(dir)).filter((f) => f.startsWith('c.json'))).toEqual(['c.json']);
  });

  it('fails without a trace when the directory does not exist', async () => {
    await expect(writeFileDurably(join(dir, 'missing', 'd.json'), 'x')).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
