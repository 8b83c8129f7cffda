import { rm } from 'node:fs/promises';
import { afterEach } from 'vitest';
import { type ActionCore, runAction } from '../../src/action/run-action.js';
import {
  type ParsedMessagesRequest,
  reply,
  type Script,
  type ScriptedReply,
} from '../../src/emulators/anthropic/index.js';
import { DEFAULT_TOKEN } from '../../src/emulators/github/index.js';
import { type RunFixtureOptions, useRunFixture } from '../cli/run-fixture.js';
import { inputEnv, type RecordedCore, recordingCore, writeEvent } from './action-fixture.js';

/** The edit that fixes greet.js's typo. */
export const fixTypo = reply.toolUse([
  {
    name: 'str_replace_based_edit_tool',
    input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
  },
]);

/** Fixes the typo when the issue says "typo"; changes nothing otherwise. */
export function fixTheTypo(request: ParsedMessagesRequest): ScriptedReply {
  if (request.messages.length > 1) return reply.text('Done.');
  if (JSON.stringify(request.messages[0]?.content ?? '').includes('typo')) return fixTypo;
  return reply.text('Nothing to change.');
}

export interface ActOptions {
  event: string;
  payload: unknown;
  inputs?: Record<string, string>;
  script?: Script;
  /** Called with the run's environment once the servers listen, before the action starts. */
  beforeRun?: (env: Record<string, string>) => unknown;
}

/**
 * The action run in-process, as the runner would start it, against the emulators on loopback, in a
 * checkout whose greet.js says "helo". Call at the top of a test file: it registers the hooks.
 */
export function useActionRuns(options: RunFixtureOptions = {}) {
  const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" }, options);
  const tempDirs: string[] = [];
  afterEach(async () => {
    await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function act(options: ActOptions) {
    const { env, anthropic } = await run.start(options.script ?? fixTheTypo);
    await options.beforeRun?.(env);
    const event = await writeEvent(options.payload);
    tempDirs.push(event.dir);
    const inputs = await inputEnv({
      github_token: DEFAULT_TOKEN,
      anthropic_api_key: env.ANTHROPIC_API_KEY as string,
      verify_command: 'grep -q "\'hello\'" greet.js',
      ...options.inputs,
    });
    const core: RecordedCore = recordingCore(inputs);
    const runnerEnv = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...run.fx.env,
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: options.event,
      GITHUB_EVENT_PATH: event.path,
      GITHUB_REPOSITORY: 'octo-org/widgets',
      GITHUB_API_URL: env.GITHUB_API_URL as string,
      ...(env.GITHUB_SERVER_URL ? { GITHUB_SERVER_URL: env.GITHUB_SERVER_URL } : {}),
      ANTHROPIC_BASE_URL: env.ANTHROPIC_BASE_URL as string,
      GITHUB_RUN_ID: '42',
      ...inputs,
    };
    const code = await runAction({
      env: runnerEnv,
      cwd: run.fx.checkout,
      core: core as ActionCore,
      version: '0.0.0',
      writeSpacingMs: 0,
    });
    // Everything the runner would show or keep; the masks registered with setSecret are not output.
    const { secrets: _masks, ...shown } = core;
    const everything = JSON.stringify({ ...shown, summary: core.summaryHtml() });
    return { code, core, anthropic, everything, apiKey: env.ANTHROPIC_API_KEY as string };
  }

  return { run, act };
}
