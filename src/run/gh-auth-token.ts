import { execFile } from 'node:child_process';
import { scrubEnv } from '../agent/tools/scrub-env.js';
import type { Env } from './secrets.js';

/** `gh auth token` answers from its config file at once; a gh that hangs is not waited on. */
const GH_TIMEOUT_MS = 10_000;

/**
 * The host gh keeps the login under: github.com, or the GitHub Enterprise server the API URL names
 * (`https://ghe.example.com/api/v3` → ghe.example.com).
 */
export function ghHost(env: Env): string {
  for (const value of [env.GITHUB_SERVER_URL, env.GITHUB_API_URL]) {
    if (!value || !URL.canParse(value)) continue;
    const host = new URL(value).host;
    return host === 'api.github.com' ? 'github.com' : host;
  }
  return 'github.com';
}

/**
 * The token of a `gh auth login` for `host` (`gh auth token --hostname <host>`), without its line
 * end; undefined when gh is not installed, not logged in there, or does not answer in time. gh gets
 * the environment without issueloop's credentials: it needs only its own config (HOME, GH_CONFIG_DIR).
 */
export function ghAuthToken(env: Env, host: string): Promise<string | undefined> {
  const ghEnv = { ...scrubEnv(env), GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1' };
  return new Promise((resolve) => {
    execFile(
      'gh',
      ['auth', 'token', '--hostname', host],
      { env: ghEnv, timeout: GH_TIMEOUT_MS, encoding: 'utf8', windowsHide: true },
      (err, stdout) => {
        if (err) {
          resolve(undefined);
          return;
        }
        // gh ends its answer with one newline; anything else in the token is for checkedToken to name.
        const token = stdout.endsWith('\n') ? stdout.slice(0, -1) : stdout;
        resolve(token === '' ? undefined : token);
      },
    );
  });
}
