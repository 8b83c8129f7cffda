import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { costOf, type PriceTable, priceOf } from '../../model/prices.js';
import { addUsage, type TokenUsage, ZERO_USAGE } from '../../model/types.js';
import { MODEL_PORT } from '../../sandbox/domain-proxy.js';
import {
  type ModelCredential,
  type ModelProxy,
  type RefusedModelRequest,
  startModelProxy,
} from '../../sandbox/model-proxy.js';
import type { CommandSandbox } from '../../sandbox/sandbox.js';
import { claudeConfigDir } from './claude-scope.js';
import { budgetGate } from './model-budget.js';

/** The environment variables Claude Code logs in with, in the order it prefers them. */
export const MODEL_CREDENTIALS = [
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_API_KEY',
  'CLAUDE_CODE_OAUTH_TOKEN',
] as const;
export type CredentialName = (typeof MODEL_CREDENTIALS)[number];

/** The model credential the harness holds, and the variable `claude` would have read it from. */
export interface HeldCredential {
  name: CredentialName;
  value: string;
}

/**
 * What `claude` logs in with instead, before the session's random part: shaped like the real thing
 * so the CLI takes it (an OAuth token also makes it send the OAuth beta header the API wants), worth
 * nothing but a call to this session's proxy, which refuses any other caller.
 */
export const PLACEHOLDER_PREFIXES: Readonly<Record<CredentialName, string>> = {
  ANTHROPIC_AUTH_TOKEN: 'issueloop-placeholder-',
  ANTHROPIC_API_KEY: 'sk-ant-api03-issueloop-placeholder-',
  CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-issueloop-placeholder-',
};

/**
 * The CLI's documented switches for traffic it does not need to work: telemetry, error reports,
 * auto-update checks and the rest of its non-essential calls (its `HEAD /api/hello` probe among them).
 */
export const QUIET_CLI: Readonly<Record<string, string>> = Object.freeze({
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
});

/** Variables of the harness's environment that would route, or add headers to, `claude`'s API calls. */
export const MODEL_ROUTING = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_CUSTOM_HEADERS', 'ANTHROPIC_UNIX_SOCKET'];

type Env = Readonly<Record<string, string | undefined>>;

async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The credential to hold: from the environment, else the login Claude Code keeps itself (an API key
 * approved into ~/.claude.json, or the subscription's OAuth token in .credentials.json while it has
 * not expired at `now`: the proxy cannot refresh it, and the CLI would retry its 401s for minutes).
 */
export async function findModelCredential(env: Env, now?: number): Promise<HeldCredential | undefined> {
  for (const name of MODEL_CREDENTIALS) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  const settings = await readJson(join(env.HOME ?? homedir(), '.claude.json'));
  if (typeof settings?.primaryApiKey === 'string' && settings.primaryApiKey) {
    return { name: 'ANTHROPIC_API_KEY', value: settings.primaryApiKey };
  }
  const login = await readJson(join(claudeConfigDir(env), '.credentials.json'));
  const oauth = login?.claudeAiOauth as { accessToken?: unknown; expiresAt?: unknown } | undefined;
  const expired = now !== undefined && typeof oauth?.expiresAt === 'number' && oauth.expiresAt <= now;
  if (typeof oauth?.accessToken === 'string' && oauth.accessToken && !expired) {
    return { name: 'CLAUDE_CODE_OAUTH_TOKEN', value: oauth.accessToken };
  }
  return undefined;
}

function credentialFor(held: HeldCredential): ModelCredential {
  return { scheme: held.name === 'ANTHROPIC_API_KEY' ? 'x-api-key' : 'bearer', value: held.value };
}

/** What the session's Claude Code calls used, as the API told the proxy, priced like the native engine's. */
export interface ModelSpend {
  usage: TokenUsage;
  costUsd: number;
  responses: number;
  /** Messages calls the proxy answered itself because the budget was spent. */
  overBudget: number;
}

/** The session's way to the model: the proxy holding the credential, and what went through it. */
export interface ModelAccess {
  held: HeldCredential;
  /** What `claude` gets in the credential's variable: this session's key to the proxy. */
  placeholder: string;
  /** The proxy's Unix socket, for the claude sandbox to show at 127.0.0.1:MODEL_PORT. */
  socket: string;
  /** The variables `claude` gets in `sandbox`: where the API is, the placeholder, the quiet switches. */
  env(sandbox: CommandSandbox): Record<string, string>;
  spent(): ModelSpend;
  /** Resolves once every response of a finished call has been counted. */
  idle(): Promise<void>;
  refused(): RefusedModelRequest[];
  close(): Promise<void>;
}

/** Where `claude` finds the proxy: the sandbox's bridge to its socket, or (unconfined) its loopback port. */
export function modelUrlFor(sandbox: CommandSandbox, proxy: Pick<ModelProxy, 'url'>): string {
  if (sandbox.kind === 'bwrap') return `http://127.0.0.1:${MODEL_PORT}`;
  if (!proxy.url) throw new Error('the model proxy has no loopback listener for an unconfined claude');
  return proxy.url;
}

/** Direct to loopback, whatever HTTP(S)_PROXY the environment names. */
function noProxy(env: Env): Record<string, string> {
  const list = [env.NO_PROXY ?? env.no_proxy, '127.0.0.1', 'localhost'].filter(Boolean).join(',');
  return { NO_PROXY: list, no_proxy: list };
}

/**
 * Starts the session's model proxy for the credential the harness holds; undefined when it holds
 * none (then `claude` is not logged in and says so, and the fallback can take over).
 */
export async function openModelAccess(options: {
  env: Env;
  prices: PriceTable;
  /** Also a loopback port on the host: only for a `claude` that runs unconfined (`sandbox.mode: none`). */
  tcp: boolean;
  /**
   * What Claude Code may spend in the session (`session.max_usd`), by issueloop's prices: once spent,
   * the proxy answers Messages calls itself, whatever the CLI's own count says; calls in flight hold
   * their worst-case cost meanwhile (model-budget.ts).
   */
  budgetUsd?: number;
  onRefused?: (request: string) => void;
  /** The time, for a stored login's expiry. */
  now?: number;
}): Promise<ModelAccess | undefined> {
  const held = await findModelCredential(options.env, options.now);
  if (!held) return undefined;
  const placeholder = `${PLACEHOLDER_PREFIXES[held.name]}${randomBytes(16).toString('hex')}`;
  let spend: ModelSpend = { usage: ZERO_USAGE, costUsd: 0, responses: 0, overBudget: 0 };
  const { budgetUsd } = options;
  const gate = budgetGate({
    budgetUsd,
    prices: options.prices,
    spentUsd: () => spend.costUsd,
    onOver: () => {
      spend = { ...spend, overBudget: spend.overBudget + 1 };
      return `the session's budget is spent ($${spend.costUsd.toFixed(4)} of $${(budgetUsd ?? 0).toFixed(2)})`;
    },
  });
  const proxy = await startModelProxy({
    upstream: options.env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com',
    credential: credentialFor(held),
    clientKey: placeholder,
    tcp: options.tcp,
    onUsage: ({ model, usage }) => {
      spend = {
        ...spend,
        usage: addUsage(spend.usage, usage),
        costUsd: spend.costUsd + costOf(usage, priceOf(model, options.prices)),
        responses: spend.responses + 1,
      };
    },
    admit: gate.admit,
    ...(options.onRefused ? { onRefused: options.onRefused } : {}),
  });
  return {
    held,
    placeholder,
    socket: proxy.socket,
    env: (sandbox) => ({
      ...QUIET_CLI,
      ...noProxy(options.env),
      ANTHROPIC_BASE_URL: modelUrlFor(sandbox, proxy),
      [held.name]: placeholder,
    }),
    spent: () => spend,
    idle: () => proxy.idle(),
    refused: () => proxy.refused(),
    close: () => proxy.close(),
  };
}
