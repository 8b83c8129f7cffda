import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summary } from '@actions/core';
import examples from '@octokit/webhooks-examples/api.github.com/index.json' with { type: 'json' };
import { parse } from 'yaml';
import type { ActionCore } from '../../src/action/run-action.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BUNDLE = join(ROOT, 'action', 'dist', 'index.mjs');

interface ActionYaml {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string };
}

export async function readActionYaml(): Promise<ActionYaml> {
  return parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as ActionYaml;
}

/** The INPUT_* variables the runner sets: every declared input, its default unless given. */
export async function inputEnv(given: Record<string, string>): Promise<Record<string, string>> {
  const { inputs } = await readActionYaml();
  const env: Record<string, string> = {};
  for (const [name, spec] of Object.entries(inputs)) {
    const fallback = spec.default?.includes('${{') ? '' : (spec.default ?? '');
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = given[name] ?? fallback;
  }
  return env;
}

type Example = { name: string; examples: Array<Record<string, unknown>> };

/** A real `issues` / `labeled` webhook payload (from @octokit/webhooks-examples), pointed at our issue. */
export function labeledPayload(options: {
  number: number;
  title: string;
  label: string;
  sender: string;
  senderType?: 'User' | 'Bot';
}): Record<string, unknown> {
  const issues = (examples as Example[]).find((e) => e.name === 'issues');
  const real = issues?.examples.find((e) => e.action === 'labeled');
  if (!real) throw new Error('@octokit/webhooks-examples has no issues.labeled example');
  const payload = structuredClone(real) as {
    label: { name: string };
    issue: { number: number; title: string };
    sender: { login: string; type: string };
    repository: { full_name: string; name: string; owner: { login: string } };
  };
  payload.label.name = options.label;
  payload.issue.number = options.number;
  payload.issue.title = options.title;
  payload.sender.login = options.sender;
  payload.sender.type = options.senderType ?? 'User';
  payload.repository.full_name = 'octo-org/widgets';
  payload.repository.name = 'widgets';
  payload.repository.owner.login = 'octo-org';
  return payload as unknown as Record<string, unknown>;
}

/** A new comment (`issue_comment` `created`, from the webhook examples) on an issue or a PR. */
export function commentPayload(options: {
  number: number;
  comment: number;
  body: string;
  sender: string;
  onPull?: boolean;
}): Record<string, unknown> {
  const comments = (examples as Example[]).find((e) => e.name === 'issue_comment');
  const real = comments?.examples.find((e) => e.action === 'created');
  if (!real) throw new Error('@octokit/webhooks-examples has no issue_comment.created example');
  const payload = structuredClone(real) as {
    issue: { number: number; title: string; pull_request?: unknown };
    comment: { id: number; body: string; user: { login: string } };
    sender: { login: string; type: string };
    repository: { full_name: string };
  };
  payload.issue.number = options.number;
  payload.issue.title = 'Greeting typo';
  if (options.onPull) payload.issue.pull_request = { url: `https://api.github.com/pulls/${options.number}` };
  else delete payload.issue.pull_request;
  payload.comment.id = options.comment;
  payload.comment.body = options.body;
  payload.comment.user.login = options.sender;
  payload.sender.login = options.sender;
  payload.sender.type = 'User';
  payload.repository.full_name = 'octo-org/widgets';
  return payload as unknown as Record<string, unknown>;
}

/** The `workflow_dispatch` example payload, as the runner writes it to GITHUB_EVENT_PATH. */
export function dispatchPayload(): Record<string, unknown> {
  const dispatch = (examples as Example[]).find((e) => e.name === 'workflow_dispatch');
  const real = dispatch?.examples[0];
  if (!real) throw new Error('@octokit/webhooks-examples has no workflow_dispatch example');
  return structuredClone(real);
}

export async function writeEvent(payload: unknown): Promise<{ dir: string; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'issueloop-action-'));
  const path = join(dir, 'event.json');
  await writeFile(path, JSON.stringify(payload));
  return { dir, path };
}

/** Parses the GITHUB_OUTPUT file @actions/core writes (`name<<delimiter`, value, delimiter). */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i] ?? '');
    if (!match) continue;
    const [, name, delimiter] = match;
    const value: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '');
    out[name as string] = value.join('\n');
  }
  return out;
}

export interface RecordedCore extends ActionCore {
  outputs: Record<string, string>;
  secrets: string[];
  notices: string[];
  warnings: string[];
  errors: Array<{ message: string; title?: string }>;
  failed: string[];
  /** info lines and group markers, in order, as the runner's log would show them. */
  log: string[];
  summaryHtml(): string;
}

/** @actions/core as the action sees it, recorded; the summary is the real builder, never written. */
export function recordingCore(inputs: Record<string, string>): RecordedCore {
  summary.emptyBuffer();
  let written = '';
  const core: RecordedCore = {
    outputs: {},
    secrets: [],
    notices: [],
    warnings: [],
    errors: [],
    failed: [],
    log: [],
    getInput: (name) => (inputs[`INPUT_${name.toUpperCase()}`] ?? '').trim(),
    setSecret: (secret) => core.secrets.push(secret),
    setOutput: (name, value) => {
      core.outputs[name] = value;
    },
    setFailed: (message) => core.failed.push(message),
    notice: (message) => core.notices.push(message),
    warning: (message) => core.warnings.push(message),
    error: (message, properties) =>
      core.errors.push({ message, ...(properties?.title ? { title: properties.title } : {}) }),
    info: (message) => core.log.push(message),
    startGroup: (name) => core.log.push(`::group::${name}`),
    endGroup: () => core.log.push('::endgroup::'),
    summary: {
      addHeading(text, level) {
        summary.addHeading(text, level);
        return core.summary;
      },
      addRaw(text, eol) {
        summary.addRaw(text, eol);
        return core.summary;
      },
      addTable(rows) {
        summary.addTable(rows);
        return core.summary;
      },
      write: async () => {
        written = summary.stringify();
        summary.emptyBuffer();
      },
    },
    summaryHtml: () => written || summary.stringify(),
  };
  return core;
}
