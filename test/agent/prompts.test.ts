import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderFirstMessage } from '../../src/agent/first-message.js';
import { findBootFile, parseBootDirective } from '../../src/agent/project-files.js';
import { loadPrompt, parsePrompt, renderTemplate, replaceSections } from '../../src/agent/prompt-template.js';
import { renderSystemPrompt } from '../../src/agent/system-prompt.js';

describe('prompt templates', () => {
  it('every prompt file has its versioned header and renders with exactly its placeholders', async () => {
    const system = await loadPrompt('system');
    expect(system.version).toMatch(/^v\d+$/);
    expect(renderTemplate(await loadPrompt('compaction'), { transcript: 'T' })).toContain(
      '<transcript>\nT\n</transcript>',
    );
    expect(renderTemplate(await loadPrompt('diagnosis'), { task: 'a', log_tail: 'b' })).toContain(
      '<log>\nb\n</log>',
    );
  });

  it('a missing or unused value is a bug reported by name, never a literal {{…}} sent to the model', () => {
    const template = parsePrompt('x', '<!-- prompt: x v3 -->\nHello {{name}}');
    expect(() => renderTemplate(template, {})).toThrow('prompts/x.md (v3): no value for name');
    expect(() => renderTemplate(template, { name: 'a', other: 'b' })).toThrow('no placeholder for other');
    expect(() => parsePrompt('x', 'no header')).toThrow('must start with "<!-- prompt: x v<N> -->"');
  });

  it('a section with a heading the base has replaces it in place; the rest is extra (seed 004 task 5)', () => {
    const base = 'intro\n\n## Rules\n- old rule\n\n## Tools\n- t';
    const { text, extra } = replaceSections(base, 'note\n\n## rules\n- new rule\n\n## Style\n- tabs');
    expect(text).toBe('intro\n\n## rules\n- new rule\n\n## Tools\n- t');
    expect(text).not.toContain('old rule');
    expect(extra).toBe('note\n\n## Style\n- tabs');
  });

  it('headings inside code fences are not sections', () => {
    const { text } = replaceSections('## A\n```\n## B\n```', '## B\nreplaced');
    expect(text).toContain('```\n## B\n```');
  });
});

describe('system prompt', () => {
  it('has one Quick Reference with the repository, branch, verify command and per-turn budget', async () => {
    const { text, version } = await renderSystemPrompt({
      repo: 'octo/widgets',
      branch: 'issueloop/issue-4',
      verifyCommand: 'npm test',
      maxModelCallsPerTurn: 25,
    });
    expect(version).toMatch(/^system v\d+$/);
    expect(text.match(/## Quick Reference/g)).toHaveLength(1);
    expect(text).toContain('octo/widgets');
    expect(text).toContain('`issueloop/issue-4`');
    expect(text).toContain('`npm test` must pass');
    expect(text).toContain('25 model calls');
    expect(text).not.toMatch(/\{\{/);
  });

  it('a boot file replaces a same-named section and adds the rest as Project context', async () => {
    const { text } = await renderSystemPrompt({
      repo: 'o/r',
      branch: 'b',
      maxModelCallsPerTurn: 5,
      boot: {
        path: '.issueloop/boot.md',
        text: 'A Go project.\n\n## Rules\n- use gofmt',
        truncated: false,
        source: 'config',
      },
    });
    expect(text.match(/## Rules/g)).toHaveLength(1);
    expect(text).toContain('- use gofmt');
    expect(text).not.toContain('Do not commit, push');
    expect(text).toMatch(/## Project context \(from \.issueloop\/boot\.md\)\nA Go project\.$/);
  });
});

describe('boot file', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'issueloop-boot-'));
    await mkdir(join(dir, '.issueloop'));
    await mkdir(join(dir, 'docs'));
    await writeFile(join(dir, '.issueloop/boot.md'), 'configured boot');
    await writeFile(join(dir, 'docs/agent.md'), 'directive boot');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the directive at the top of the issue body wins over the configured file', async () => {
    const found = await findBootFile(dir, '<!-- boot: docs/agent.md -->\nPlease fix', '.issueloop/boot.md');
    expect(found.boot).toMatchObject({ path: 'docs/agent.md', text: 'directive boot', source: 'directive' });
    expect(found.warnings).toEqual([]);
  });

  it('without a directive the configured file is used; without either, nothing', async () => {
    expect((await findBootFile(dir, 'Please fix', '.issueloop/boot.md')).boot).toMatchObject({
      source: 'config',
    });
    expect((await findBootFile(dir, null, 'nope.md')).boot).toBeUndefined();
  });

  it('a directive that is not at the top is ordinary text', () => {
    expect(parseBootDirective('Fix this\n<!-- boot: docs/agent.md -->')).toBeUndefined();
    expect(parseBootDirective('  \n<!-- boot:docs/agent.md-->')).toBe('docs/agent.md');
  });

  it('a directive escaping the repository (.., absolute, symlink) is refused and the configured file used', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'issueloop-outside-'));
    await writeFile(join(outside, 'secret.md'), 'do not read');
    await symlink(join(outside, 'secret.md'), join(dir, 'docs/link.md'));
    try {
      for (const path of ['../../etc/passwd', join(outside, 'secret.md'), 'docs/link.md']) {
        const found = await findBootFile(dir, `<!-- boot: ${path} -->`, '.issueloop/boot.md');
        expect(found.boot?.text).toBe('configured boot');
        expect(found.warnings).toHaveLength(1);
        expect(found.warnings[0]).toContain('boot directive ignored');
      }
      const missing = await findBootFile(dir, '<!-- boot: docs/none.md -->', '.issueloop/boot.md');
      expect(missing.warnings).toEqual([
        'boot directive names docs/none.md, which does not exist; using .issueloop/boot.md',
      ]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('first message', () => {
  it('is "Issue #<n>: <title>" then the body, then the interrupted context and the hint', () => {
    expect(
      renderFirstMessage({
        number: 12,
        title: ' Crash on save ',
        body: 'Steps…',
        interruptedContext: 'was editing a.ts',
        hint: 'run npm ci',
      }),
    ).toBe(
      'Issue #12: Crash on save\n\nSteps…\n\nCONTEXT FROM INTERRUPTED ATTEMPT: was editing a.ts\n\nIMPORTANT HINT FROM PREVIOUS ATTEMPT: run npm ci',
    );
    expect(renderFirstMessage({ number: 1, title: 't', body: '' })).toBe(
      'Issue #1: t\n\n(The issue has no description.)',
    );
  });
});
