import { basename } from 'node:path';
import type { OpenedClaimStore } from '../../claims/open-claim-store.js';
import { ENDPOINT_VARIABLES, endpointProblems } from '../../config/endpoints.js';
import { type LoadConfigOptions, type LoadedConfig, loadConfig } from '../../config/load-config.js';
import { protectedGlobs, protectedPathsWarning } from '../../config/protected-paths.js';
import type { Config } from '../../config/schema.js';
import { systemClock } from '../../core/clock.js';
import { ConfigError, CorruptStateError, StateAccessError, UsageError } from '../../core/errors.js';
import { checkCheckout, checkGit, checkNode } from './doctor-host.js';
import type { Check, DoctorReport } from './doctor-report.js';
import { targetChecks } from './doctor-target.js';

export interface DoctorInput extends LoadConfigOptions {
  version: string;
  nodeVersion: string;
  /** Ask `gh auth token` when no variable holds a token, as `run` does (the CLI). */
  gh?: boolean;
  /** Injected by tests; the real fetch otherwise. */
  fetch?: typeof fetch;
  /** How the executable was started (argv[1]), for the on-PATH check. */
  binPath?: string | undefined;
}

async function checkConfig(input: LoadConfigOptions): Promise<{ check: Check; loaded?: LoadedConfig }> {
  try {
    const loaded = await loadConfig(input);
    const detail = loaded.file ? `${basename(loaded.file)} is valid` : 'no config file: using defaults';
    return { check: { name: 'config', status: 'ok', detail }, loaded };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return {
      check: {
        name: 'config',
        status: 'fail',
        detail: err.message,
        fix: 'correct the fields named above (see "Configuration" in the README)',
        config: true,
      },
    };
  }
}

function checkAnthropicKey(env: LoadConfigOptions['env']): Check {
  const key = env.ANTHROPIC_API_KEY;
  if (!key) {
    return {
      name: 'anthropic key',
      status: 'warn',
      detail: 'ANTHROPIC_API_KEY is not set',
      fix: 'export ANTHROPIC_API_KEY=<key> (create one in the Anthropic Console under API keys)',
    };
  }
  const kind = key.startsWith('sk-ant-api')
    ? 'API key'
    : key.startsWith('sk-ant-')
      ? 'Anthropic credential'
      : 'unrecognised format';
  return { name: 'anthropic key', status: 'ok', detail: `ANTHROPIC_API_KEY is set (${kind})` };
}

/** Scheme, host and path only: a query string or user-info may carry a credential. */
function describeEndpoint(value: string): string {
  const url = new URL(value);
  const hidden = url.search !== '' || url.username !== '' ? ' (credentials and query not shown)' : '';
  return `${url.origin}${url.pathname}${hidden}`;
}

function checkEndpoints(env: LoadConfigOptions['env']): Check[] {
  const bad = new Map(endpointProblems(env).map((p) => [p.name, p]));
  const checks: Check[] = [];
  for (const name of ENDPOINT_VARIABLES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const problem = bad.get(name);
    checks.push(
      problem
        ? { name: 'endpoint', status: 'fail', detail: problem.problem, fix: problem.fix, config: true }
        : { name: 'endpoint', status: 'ok', detail: `${name}=${describeEndpoint(value)}` },
    );
  }
  return checks;
}

/** The claim store opens and parses; a corrupt file fails like bad configuration (exit 2). */
async function checkClaims(input: DoctorInput, loaded: LoadedConfig | undefined): Promise<Check | undefined> {
  if (!loaded) return undefined;
  const [{ openClaimStore }, { ClaimStoreUnreachableError }] = await Promise.all([
    import('../../claims/open-claim-store.js'),
    import('../../claims/errors.js'),
  ]);
  let opened: OpenedClaimStore;
  try {
    opened = openClaimStore(loaded.config, { cwd: input.cwd, clock: systemClock });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return {
      name: 'claims',
      status: 'fail',
      detail: err.message,
      fix: 'name the repository (--repo, `repo:`, ISSUELOOP_REPO)',
      config: true,
    };
  }
  try {
    const views = await opened.store.list();
    const leased = views.filter((v) => v.lease).length;
    const blocked = views.filter((v) => v.needs_human).length;
    const detail = `${opened.location}: ${leased} leased, ${blocked} needing a human, ${views.length} known`;
    return { name: 'claims', status: 'ok', detail };
  } catch (err) {
    if (err instanceof ClaimStoreUnreachableError) {
      return {
        name: 'claims',
        status: 'fail',
        detail: err.message,
        fix: 'start Redis there, or correct claims.redis_url (ISSUELOOP_CLAIMS__REDIS_URL)',
      };
    }
    if (err instanceof StateAccessError) {
      // The message already says what to change; this is the short form for the check's table.
      const fix = 'move what is in the way, fix the permissions, or point state_dir elsewhere';
      return { name: 'claims', status: 'fail', detail: err.message, fix, config: true };
    }
    if (!(err instanceof CorruptStateError)) throw err;
    const fix =
      err.reason === 'newer_version'
        ? 'upgrade issueloop'
        : 'repair the file, or run `issueloop reset --claims` to move it aside';
    return { name: 'claims', status: 'fail', detail: err.message, fix, config: true };
  } finally {
    await opened.store.close();
  }
}

/**
 * Starts a real sandbox, as a run would before its first session; with `sandbox.mode: none`, says
 * what that gives up.
 */
async function checkSandbox(
  input: DoctorInput,
  loaded: LoadedConfig | undefined,
): Promise<Check | undefined> {
  if (!loaded) return undefined;
  const { UNSANDBOXED_WARNING } = await import('../../run/open-sandbox.js');
  if (loaded.config.sandbox.mode === 'none') {
    return {
      name: 'sandbox',
      status: 'warn',
      detail: UNSANDBOXED_WARNING,
      fix: 'set sandbox.mode: os (the default) and install bubblewrap',
    };
  }
  const { probeSandbox } = await import('../../sandbox/probe.js');
  const probe = await probeSandbox(input.env);
  if (!probe.ok) return { name: 'sandbox', status: 'fail', detail: probe.problem, fix: probe.fix };
  const { network, allow_domains: allow } = loaded.config.sandbox;
  const commands = network === 'full' ? 'any public host' : allow.length > 0 ? allow.join(', ') : 'no host';
  return {
    name: 'sandbox',
    status: 'ok',
    detail: `${probe.facts.bwrap} started a sandbox (own PID namespace, read-only system, empty home, own network namespace joined with ${probe.facts.nsenter}; egress only through issueloop's proxy, commands reach ${commands})`,
  };
}

/** Which paths an agent's change may not touch; a warning when the list drops a default. */
function checkProtectedPaths(config: Config): Check {
  const warning = protectedPathsWarning(config.protected_paths);
  if (warning) {
    return {
      name: 'protected paths',
      status: 'warn',
      detail: warning,
      fix: "protected_paths: ['...', <your globs>] keeps the defaults and adds yours",
    };
  }
  const globs = protectedGlobs(config.protected_paths);
  return { name: 'protected paths', status: 'ok', detail: `not delivered by an agent: ${globs.join(', ')}` };
}

/**
 * Whether a session's change has to pass the repository's own checks before it becomes a pull
 * request. Without `verify.command` a non-empty diff is enough, broken tests and all: a warning,
 * since the template `init` writes leaves it commented out.
 */
export function checkVerify(config: Config): Check {
  const command = config.verify.command;
  if (command === undefined || command.trim() === '') {
    return {
      name: 'verify',
      status: 'warn',
      detail: 'no verify.command: any non-empty change becomes a pull request, and your tests are never run',
      fix: 'set verify.command in issueloop.config.yaml to your checks, e.g. `npm test` (and session.setup to install, e.g. `npm ci`)',
    };
  }
  return { name: 'verify', status: 'ok', detail: `\`${command}\` must pass before a pull request is opened` };
}

/** The settings as printed: a Redis URL without its user and password. */
function withoutCredentials(config: Config): Config {
  const url = config.claims.redis_url;
  if (url === undefined) return config;
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return config;
  parsed.username = parsed.username ? '***' : '';
  parsed.password = parsed.password ? '***' : '';
  return { ...config, claims: { ...config.claims, redis_url: parsed.toString() } };
}

export async function runDoctor(input: DoctorInput): Promise<DoctorReport> {
  const { check: configCheck, loaded } = await checkConfig(input);
  const checkout = await checkCheckout(input.cwd, input.env);
  const checks: Check[] = [
    checkNode(input.nodeVersion),
    await checkGit(input.env),
    ...(checkout ? [checkout] : []),
    configCheck,
  ];
  const installed = await (await import('./doctor-install.js')).checkOnPath(input.binPath, input.env);
  if (installed) checks.splice(1, 0, installed);
  // The repository and token as `run` finds them; the GitHub checks below use the same.
  const target = loaded ? await targetChecks(input, loaded) : undefined;
  checks.push(...(target?.checks ?? []), checkAnthropicKey(input.env), ...checkEndpoints(input.env));
  const claims = await checkClaims(input, loaded);
  if (claims) checks.push(claims);
  const sandbox = await checkSandbox(input, loaded);
  if (sandbox) checks.push(sandbox);
  if (loaded) checks.push(checkVerify(loaded.config), checkProtectedPaths(loaded.config));
  if (!checks.some((c) => c.name === 'endpoint' && c.status === 'fail')) {
    const { checkAnthropicApi } = await import('./doctor-anthropic.js');
    const api = await checkAnthropicApi(input.env, input.fetch);
    if (api) checks.push(api);
  }
  const unusable = checks.some(
    (c) => (c.name === 'endpoint' || c.name === 'github token') && c.status === 'fail',
  );
  if (target && !unusable) {
    const { githubChecks } = await import('./doctor-github.js');
    const remote = await githubChecks({
      env: target.env,
      cwd: input.cwd,
      version: input.version,
      loaded: target.loaded,
      ...(input.fetch ? { fetch: input.fetch } : {}),
    });
    // The remote repository check supersedes the offline one.
    const offline = checks.findIndex((c) => c.name === 'repository');
    if (offline >= 0 && remote.some((c) => c.name === 'repository')) checks.splice(offline, 1);
    checks.push(...remote);
  }
  const report: DoctorReport = {
    version: input.version,
    ok: checks.every((c) => c.status !== 'fail'),
    checks,
  };
  const used = target?.loaded ?? loaded;
  if (used) report.config = withoutCredentials(used.config);
  return report;
}
