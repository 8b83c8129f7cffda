import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Config } from '../../config/schema.js';
import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import { openGitHubAdapter } from '../../github/adapter.js';
import { BEST_OF_N_LABEL, IN_PROGRESS_LABEL, NEEDS_HUMAN_LABEL, PLAN_LABEL } from '../../github/labels.js';
import { appConfigured } from '../../run/app-token.js';
import { TOKEN_NAMES_TEXT } from '../../run/env-token.js';
import { buildGitHubClient, githubToken, stateDirOf } from '../../run/github-deps.js';
import { EXAMPLE_CONFIG } from '../../run/package-files.js';
import { withRepoFromOrigin } from '../../run/prerequisites.js';

/** The configuration `issueloop init` writes: examples/issueloop.config.yaml, shipped in the package. */
export async function configTemplate(): Promise<string> {
  return readFile(EXAMPLE_CONFIG, 'utf8');
}

/**
 * Writes `issueloop.config.yaml` in the checkout, unless one is there: then it is kept (init can be
 * run again to create missing labels and check the setup), or replaced with the template when
 * `force`. Returns what it did, for the user.
 */
export async function writeConfigFile(cwd: string, force: boolean, configPath?: string): Promise<string> {
  // `--config other.yaml init` writes there, so the doctor that follows reads what was written.
  const path = resolve(cwd, configPath ?? 'issueloop.config.yaml');
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, await configTemplate(), { flag: force ? 'w' : 'wx', mode: 0o644 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      return `kept ${path} (it exists; \`issueloop init --force\` replaces it with the template)`;
    }
    throw err;
  }
  return `wrote ${path}`;
}

/** The trigger label, as init creates it. */
const TRIGGER_LABEL = { color: '0e8a16', description: 'issueloop works issues with this label' };

/**
 * The trigger label and issueloop's own (those it puts on and those a maintainer puts on), created on the repository where missing (GitHub would create
 * a label grey on first use), with the token `run` would use (a GitHub App's when one is configured).
 * Skipped, with the reason, without a credential or a repository.
 */
export async function ensureLabels(input: {
  env: Readonly<Record<string, string | undefined>>;
  config: Config;
  cwd: string;
  log: Log;
  redact: Redactor;
  version: string;
  /** GitHub write pacing (GitHub's advice unless an emulator answers). */
  writeSpacingMs?: number;
  /** Injected by in-process tests; the real fetch otherwise. */
  fetch?: typeof fetch;
}): Promise<string> {
  // A GitHub App, when configured, creates them with its own token, as `run` would work.
  if (!githubToken(input.env) && !appConfigured(input.env, input.config))
    return `labels: skipped (no GitHub token: export ${TOKEN_NAMES_TEXT}, run \`gh auth login\` or configure a GitHub App, then issueloop init again)`;
  const config = input.config.repo
    ? input.config
    : await withRepoFromOrigin(input.config, input.cwd, input.env, input.redact);
  if (!config.repo) return 'labels: skipped (no repository: pass --repo owner/name or -R, or set GH_REPO)';
  const client = buildGitHubClient({ ...input, config });
  const github = await openGitHubAdapter(client, config, { stateDir: stateDirOf(config, input.cwd) });
  const created: string[] = [];
  const there: string[] = [];
  for (const [name, spec] of [
    [config.label, TRIGGER_LABEL],
    [IN_PROGRESS_LABEL, undefined],
    [NEEDS_HUMAN_LABEL, undefined],
    // Put on by a maintainer: created here so they are there to pick, with their description.
    [PLAN_LABEL, undefined],
    [BEST_OF_N_LABEL, undefined],
  ] as const) {
    ((await github.labels.ensureLabel(name, spec)) ? created : there).push(name);
  }
  return labelsLine(config.repo, created, there);
}

/** What init did to the labels: which it created and which were there already, so a rerun is clear. */
export function labelsLine(repo: string, created: readonly string[], there: readonly string[]): string {
  const parts = [
    ...(created.length > 0 ? [`created ${created.join(', ')} on ${repo}`] : []),
    ...(there.length > 0 ? [`${there.join(', ')} ${there.length === 1 ? 'was' : 'were'} there already`] : []),
  ];
  return `labels: ${created.length === 0 ? `${there.join(', ')} already on ${repo}` : parts.join('; ')}`;
}
