import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDirections, renderDirection } from '../../src/agent/attempt-directions.js';

/** Issue 32: best-of-N attempts take different directions, from a list maintainers edit in prompts/. */
describe('attempt directions (prompts/attempt-directions.md)', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  const promptsDir = async (text: string): Promise<URL> => {
    const dir = await mkdtemp(join(tmpdir(), 'directions-'));
    dirs.push(dir);
    await writeFile(join(dir, 'attempt-directions.md'), text);
    return pathToFileURL(`${dir}/`);
  };

  it('the shipped list gives three attempts three different directions, each saying k of N and that one is kept', async () => {
    const directions = await loadDirections();
    expect(directions.directions.map((d) => d.title)).toEqual([
      'The most direct change',
      'A different approach',
      'Test first',
    ]);
    const texts = [1, 2, 3].map((k) => renderDirection(directions, k, 3));
    expect(new Set(texts).size).toBe(3);
    expect(texts[0]).toContain('## Your direction: attempt 1 of 3');
    expect(texts[0]).toContain('**The most direct change.** Make the smallest, most direct change');
    expect(texts[1]).toContain('attempt 2 of 3 at this issue, run side by side');
    expect(texts[1]).toContain('different from the one that failed last time (see "The last attempt"');
    expect(texts[2]).toContain('a test that reproduces the issue and fails');
    for (const text of texts) {
      expect(text).toContain('Only one of them is kept');
      expect(text).not.toMatch(/\{\{/);
    }
  });

  it('past the end of the list the directions start again', async () => {
    const directions = await loadDirections();
    const fourth = renderDirection(directions, 4, 5);
    expect(fourth).toContain('attempt 4 of 5');
    expect(fourth).toContain('**The most direct change.**');
    expect(renderDirection(directions, 5, 5)).toContain('**A different approach.**');
  });

  it('a maintainer’s own list is used as written', async () => {
    const dir = await promptsDir(
      '<!-- prompt: attempt-directions v7 -->\n## Intro\nTry {{attempt}}/{{attempts}}.\n\n## Alpha\nGo left.\n\n## Beta\nGo right.\n',
    );
    const directions = await loadDirections(dir);
    expect(directions.version).toBe('v7');
    expect(renderDirection(directions, 2, 2)).toBe('## Intro\nTry 2/2.\n\n**Beta.** Go right.');
  });

  it('a list without a direction is reported by name', async () => {
    const dir = await promptsDir('<!-- prompt: attempt-directions v1 -->\n## Intro only\nTry {{attempt}}.\n');
    await expect(loadDirections(dir)).rejects.toThrow(
      'prompts/attempt-directions.md (v1) needs an intro section and at least one direction section',
    );
  });

  it('an intro without {{attempts}} is reported when the list is loaded, not in a first message', async () => {
    const dir = await promptsDir(
      '<!-- prompt: attempt-directions v2 -->\n## Intro\nTry {{attempt}}.\n\n## A\nGo.\n',
    );
    await expect(loadDirections(dir)).rejects.toThrow(
      'prompts/attempt-directions.md (v2): no placeholder for attempts',
    );
  });
});
