import { z } from 'zod';
import { globProblem } from '../core/path-glob.js';
import { AttemptsSchema } from './attempts-schema.js';
import { duration } from './duration-schema.js';
import { GitHubSchema } from './github-schema.js';
import { PlanSchema } from './plan-schema.js';
import { DEFAULT_PROTECTED_PATHS, DEFAULTS_ENTRY } from './protected-paths.js';
import { SandboxSchema } from './sandbox-schema.js';

export { SETUP_PRESETS } from './sandbox-schema.js';

/**
 * The one configuration schema of issueloop. Every object is strict (a typo is an error, never a
 * silently ignored key); durations are unit strings turned into milliseconds; nested sections use
 * `prefault` so their own defaults apply when the section is absent.
 */

const REPO_SLUG = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const label = z
  .string()
  .min(1, 'expected a non-empty label')
  .max(50, 'GitHub labels are at most 50 characters');
const modelId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/, 'expected a model id such as "claude-sonnet-5-5"');
const login = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, 'expected a GitHub user or organisation login');
/**
 * The largest dollar cap accepted. A cap is a guard: at today's prices a session at the default
 * 10M-token cap costs at most a few hundred dollars, so $1,000,000 is far above any budget anyone
 * means, and anything larger (`1e308`, `.inf`) is a typo or a cap that would never stop anything.
 */
export const MAX_USD = 1_000_000;
const usd = z
  .number()
  .positive('expected a positive amount in US dollars')
  .max(MAX_USD, `expected at most ${MAX_USD} US dollars (a larger cap would never stop anything)`);

export const repoSlug = z
  .string()
  // A clone URL's tail is not the repository's name: `acme/widgets.git` would reach no repository.
  .refine(
    (slug) => !slug.endsWith('.git'),
    'drop the ".git": the repository is "owner/name", e.g. "acme/widgets"',
  )
  .regex(REPO_SLUG, 'expected a repository as "owner/name", e.g. "octocat/hello-world"');

const redisUrl = z.string().refine(
  (text) => {
    try {
      return ['redis:', 'rediss:'].includes(new URL(text).protocol);
    } catch {
      return false;
    }
  },
  {
    message: 'expected a Redis URL such as "redis://localhost:6379" or "rediss://user:password@host:6380/0"',
  },
);

const ClaimsSchema = z
  .strictObject({
    /** `file`: one machine (a lock directory next to claims.json); `redis`: every host that reaches the server. */
    store: z.enum(['file', 'redis']).default('file'),
    redis_url: redisUrl.optional(),
    ttl: duration({ min: 60_000, max: 86_400_000 }).prefault('30m'),
    max_failures: z.int().min(1).max(100).default(3),
  })
  .refine((claims) => claims.store !== 'redis' || claims.redis_url !== undefined, {
    message:
      'claims.store is redis but no claims.redis_url is set: set it (or ISSUELOOP_CLAIMS__REDIS_URL), e.g. redis://localhost:6379',
    path: ['redis_url'],
  });

/**
 * Spend caps shared by every run and runner that uses the same claim store, per UTC calendar window
 * (a day from 00:00 UTC, a month from the 1st): see claims/spend-ledger.ts.
 */
const BudgetSchema = z.strictObject({
  daily_usd: usd.optional(),
  monthly_usd: usd.optional(),
});

const PriceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cache_write: z.number().nonnegative().optional(),
  cache_write_1h: z.number().nonnegative().optional(),
  cache_read: z.number().nonnegative().optional(),
});

const ModelSchema = z.strictObject({
  primary: modelId.default('claude-sonnet-5-5'),
  fallbacks: z.array(modelId).default([]),
  diagnosis_model: modelId.default('claude-haiku-5-5'),
  /** Used only when `GET /v1/models/{id}` cannot tell the window. */
  context_window: z.int().min(1_000).default(200_000),
  max_output_tokens: z.int().min(1).max(128_000).default(16_000),
  compaction_threshold: z.number().min(0.5).max(0.95).default(0.8),
  /** US dollars per million tokens, overriding the built-in table. */
  prices: z.record(modelId, PriceSchema).default({}),
});

const SessionSchema = z.strictObject({
  max_model_calls_per_turn: z.int().min(1).max(200).default(25),
  max_model_calls: z.int().min(1).default(200),
  max_tokens: z.int().min(1_000).default(10_000_000),
  max_usd: usd.default(5),
  max_duration: duration({ min: 60_000 }).prefault('45m'),
  /** Time allowed for one of the agent's bash commands before its process group is killed. */
  command_timeout: duration({ min: 1_000, max: 3_600_000 }).prefault('2m'),
  /** Characters of a command's output the model sees (head and tail kept). */
  max_tool_output: z.int().min(1_000).max(1_000_000).default(30_000),
  keep_worktrees: z.boolean().default(false),
  /**
   * Run by the harness in the worktree before the agent starts (e.g. `npm ci`): inside the sandbox,
   * with the network, never with a secret. Its failure ends the attempt before any model call.
   */
  setup: z.string().min(1, 'expected a shell command such as "npm ci"').optional(),
  setup_timeout: duration({ min: 1_000 }).prefault('10m'),
  boot_file: z.string().min(1).default('.issueloop/boot.md'),
  identity_files: z.array(z.string().min(1)).default(['.issueloop/IDENTITY.md']),
});

const VerifySchema = z.strictObject({
  /** Shell command run in the worktree; without one only the diff is checked. */
  command: z.string().min(1, 'expected a shell command such as "npm test"').optional(),
  timeout: duration({ min: 1_000 }).prefault('10m'),
  retries: z.int().min(0).max(5).default(1),
});

const StatusesSchema = z.strictObject({
  queued: z.string().min(1).default('Todo'),
  working: z.string().min(1).default('In Progress'),
  review: z.string().min(1).default('In Review'),
  done: z.string().min(1).default('Done'),
  blocked: z.string().min(1).default('Needs human'),
  /** Where an issue waits while its plan is reviewed; a board without this column is not moved. */
  plan_review: z.string().min(1).default('Plan review'),
});

export const ProjectSchema = z
  .strictObject({
    owner: login,
    number: z.int().min(1).optional(),
    title: z.string().min(1).optional(),
    status_field: z.string().min(1).default('Status'),
    statuses: StatusesSchema.prefault({}),
  })
  .refine((p) => p.number !== undefined || p.title !== undefined, {
    message: 'set project.number or project.title to name the board',
  });

/** `pr.ci_checks`: an `app:<slug>` entry; the default relies on GitHub Actions and the required checks. */
export const APP_ENTRY = /^app:([a-z0-9][a-z0-9-]*)$/i;
export const CI_CHECKS_DEFAULT = ['app:github-actions', 'required'];

const PullRequestSchema = z.strictObject({
  draft: z.boolean().default(true),
  base: z.string().min(1).optional(),
  labels: z.array(label).default([]),
  reviewers: z.array(login).default([]),
  /**
   * A pull request closed without merging: its issue goes back to the queue (a new attempt) or to
   * a human (the needs-human label).
   */
  on_closed: z.enum(['queue', 'needs_human']).default('queue'),
  /**
   * Follow-up sessions on one PR whose checks failed; when they are used up and the checks still
   * fail, the issue goes to a human.
   */
  max_followups: z.int().nonnegative().default(3),
  /**
   * The checks whose failures start a follow-up: `app:<slug>` (every check run of that GitHub App),
   * `required` (the base branch's required status checks, where the token can read them), or a check
   * run's name or status context, exactly. Every other check is ignored and counted. `[]`: CI
   * failures never start one.
   */
  ci_checks: z
    .array(
      z
        .string()
        .min(1)
        .refine((entry) => !entry.startsWith('app:') || APP_ENTRY.test(entry), {
          message: 'expected app:<slug> with a GitHub App slug, such as app:github-actions',
        }),
    )
    .default(() => [...CI_CHECKS_DEFAULT]),
  /** Resolve a review thread once a follow-up answered it (otherwise the reviewer resolves it). */
  resolve_threads: z.boolean().default(false),
  /**
   * Mark the draft PR ready for review once its checks pass and no review thread waits, and request
   * `reviewers` then (otherwise they are requested when the PR opens).
   */
  ready_when_green: z.boolean().default(false),
  /**
   * How often a run's rounds look at its open PRs (each PR is three conditional requests): the first
   * round always does, later ones once this much has passed.
   */
  watch_interval: duration({ min: 0 }).prefault('1m'),
  author: z
    .strictObject({
      name: z.string().min(1).default('issueloop'),
      email: z.email('expected an e-mail address').default('issueloop@users.noreply.github.com'),
    })
    .prefault({}),
});

const ClaudeCodeSchema = z.strictObject({
  /** The `claude` executable: a name on PATH or a path. */
  bin: z.string().min(1).default('claude'),
  /** Model for `claude --model` (an alias such as "sonnet" works); model.primary when unset. */
  model: z.string().min(1).optional(),
  /**
   * `claude --permission-mode`, with the choices the 2.1.x CLI accepts: headless Claude Code cannot
   * ask, so what it may do is granted up front.
   */
  permission_mode: z
    .enum(['acceptEdits', 'auto', 'bypassPermissions', 'manual', 'dontAsk', 'plan'])
    .default('acceptEdits'),
  /** `claude --allowedTools`: tools allowed without asking (edits are allowed by acceptEdits). */
  allowed_tools: z.array(z.string().min(1)).default(['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep']),
  /** When Claude Code fails with a rate, billing, overload, auth or timeout failure: `native` continues the
   * session with the native engine, seeded with Claude Code's session context (seed 003); `none` stops. */
  fallback: z.enum(['native', 'none']).default('native'),
});

const protectedGlob = z
  .string()
  .max(500)
  .superRefine((glob, ctx) => {
    const problem = glob === DEFAULTS_ENTRY ? undefined : globProblem(glob);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const ConfigSchema = z.strictObject({
  repo: repoSlug.optional(),
  label: label.default('issueloop'),
  exclude_labels: z.array(label).default(['issueloop:needs-human', 'wontfix']),
  /** Earlier labels are worked first; unlabelled issues come after, oldest first. */
  priority_labels: z.array(label).default([]),
  trusted_authors: z.array(login).default([]),
  workers: z.int().min(1).max(32).default(1),
  empty_rounds: z.int().min(1).max(1000).default(3),
  poll_interval: duration({ min: 1_000 }).prefault('60s'),
  max_rounds: z.int().min(1).optional(),
  run_max_usd: usd.optional(),
  budget: BudgetSchema.prefault({}),
  state_dir: z.string().min(1).default('.issueloop'),
  /** Who works a session: issueloop's own agent (`native`, the Anthropic API) or Claude Code's CLI. */
  engine: z.enum(['native', 'claude-code']).default('native'),
  claude_code: ClaudeCodeSchema.prefault({}),
  log_level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Names of extra environment variables whose values are secrets, redacted everywhere. */
  redact_env: z.array(z.string().regex(ENV_NAME, 'expected an environment variable name')).default([]),
  /**
   * Globs of paths an agent's change may not touch (see config/protected-paths.ts): a list replaces
   * the defaults, `'...'` in it stands for them, `[]` turns them off (a run and doctor warn).
   */
  protected_paths: z.array(protectedGlob).default([...DEFAULT_PROTECTED_PATHS]),
  claims: ClaimsSchema.prefault({}),
  model: ModelSchema.prefault({}),
  session: SessionSchema.prefault({}),
  sandbox: SandboxSchema.prefault({}),
  verify: VerifySchema.prefault({}),
  project: ProjectSchema.optional(),
  pr: PullRequestSchema.prefault({}),
  /** A plan a maintainer approves before the work (config/plan-schema.ts). */
  plan: PlanSchema.prefault({}),
  /** Best-of-N after a failure (config/attempts-schema.ts). */
  attempts: AttemptsSchema.prefault({}),
  /** How issueloop authenticates to GitHub beyond a token: a GitHub App (config/github-schema.ts). */
  github: GitHubSchema.prefault({}),
  /** OpenTelemetry: off unless an OTLP endpoint is set here or in `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  telemetry: z
    .strictObject({
      /** The collector's OTLP/HTTP base URL (`/v1/traces`, `/v1/metrics` are added); the variable wins. */
      otlp_endpoint: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
    })
    .prefault({}),
});

/** The validated configuration; durations are milliseconds. */
export type Config = z.output<typeof ConfigSchema>;

/** The `project:` section (the Projects v2 board), when configured. */
export type ProjectConfig = NonNullable<Config['project']>;
