import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileTracker } from '../../../src/agent/tools/file-tracker.js';
import { createToolset } from '../../../src/agent/tools/toolset.js';
import { useTempDirs } from './temp-dirs.js';

const tempDir = useTempDirs('toolset');
const signal = new AbortController().signal;

const SECRETS = {
  GITHUB_TOKEN: 'ghp_secret0123456789',
  MY_API_KEY: 'sk-api-secret-value',
  DB_PASSWORD: 'hunter2-db-secret',
  SSH_AUTH_SOCK: '/tmp/ssh-agent-secret.sock',
  DEPLOY_HOOK: 'https://hooks.example/secret-hook',
};

async function setup(
  overrides: Parameters<typeof createToolset>[0] extends infer O ? Partial<O> : never = {},
) {
  const root = await tempDir();
  const toolset = createToolset({
    root,
    env: { ...process.env, ...SECRETS },
    extraSecretNames: ['DEPLOY_HOOK'],
    ...overrides,
  });
  return { root, toolset };
}

describe('createToolset', () => {
  it('offers the editor and bash, with their definitions', async () => {
    const { toolset } = await setup();
    expect(toolset.tools.map((tool) => tool.name)).toEqual(['str_replace_based_edit_tool', 'bash']);
    expect(toolset.definitions).toEqual([
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 50_000 },
      { type: 'bash_20250124', name: 'bash' },
    ]);
  });

  it('keeps secrets of the raw environment out of commands', async () => {
    const { toolset } = await setup();
    const env = await toolset.run('bash', { command: 'env' }, signal);
    expect(env.isError).toBe(false);
    for (const value of Object.values(SECRETS)) expect(env.content).not.toContain(value);
    expect(env.content).toContain('GIT_TERMINAL_PROMPT=0');
    expect(env.content).toMatch(/^PATH=/m);
    expect(
      await toolset.run('bash', { command: 'echo "[$GITHUB_TOKEN][$MY_API_KEY][$DB_PASSWORD]"' }, signal),
    ).toEqual({ isError: false, content: '[][][]\n' });
  });

  it('applies the bash timeout and output cap it was given', async () => {
    const { toolset } = await setup({ bashTimeoutMs: 200, maxOutputChars: 100 });
    const long = await toolset.run('bash', { command: 'seq 1 1000' }, signal);
    expect(long.content).toContain('characters omitted');
    const slow = await toolset.run('bash', { command: 'sleep 30' }, signal);
    expect(slow).toEqual({
      isError: true,
      content: '[command timed out after 0.2 s; its process group was killed]',
    });
  });

  it('runs the editor on the worktree and tracks what it did', async () => {
    const { root, toolset } = await setup();
    const created = await toolset.run(
      'str_replace_based_edit_tool',
      { command: 'create', path: 'notes/a.md', file_text: 'hello\n' },
      signal,
    );
    expect(created.isError).toBe(false);
    expect(await readFile(join(root, 'notes', 'a.md'), 'utf8')).toBe('hello\n');
    expect(toolset.tracker.snapshot()).toEqual({ read: [], created: ['notes/a.md'], modified: [] });
  });

  it('uses a tracker it is given', async () => {
    const tracker = createFileTracker();
    tracker.record('read', 'earlier.ts');
    const { toolset } = await setup({ tracker });
    expect(toolset.tracker).toBe(tracker);
    expect(toolset.tracker.snapshot().read).toEqual(['earlier.ts']);
  });

  it('answers an unknown tool with the available ones', async () => {
    const { toolset } = await setup();
    expect(await toolset.run('computer', {}, signal)).toEqual({
      isError: true,
      content: 'unknown tool "computer"; available: str_replace_based_edit_tool, bash',
    });
  });

  it('turns a tool that throws into an error result', async () => {
    const { toolset } = await setup();
    const bash = toolset.tools[1];
    if (bash === undefined) throw new Error('bash tool missing');
    bash.run = async () => {
      throw new Error('boom');
    };
    expect(await toolset.run('bash', { command: 'true' }, signal)).toEqual({
      isError: true,
      content: 'bash failed unexpectedly: boom',
    });
  });

  it('lets an abort reject', async () => {
    const { toolset } = await setup();
    const controller = new AbortController();
    controller.abort(new Error('session stopped'));
    await expect(
      toolset.run('str_replace_based_edit_tool', { command: 'view', path: '.' }, controller.signal),
    ).rejects.toThrow('session stopped');
  });
});
