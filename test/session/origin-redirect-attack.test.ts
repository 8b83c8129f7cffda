import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/redact.js';
import { reply } from '../../src/emulators/anthropic/index.js';
import { createGitHubEmulator, type GitHubEmulator } from '../../src/emulators/github/index.js';
import type { ListeningEmulator } from '../../src/emulators/github/types.js';
import { createAppTokenSource } from '../../src/github/app-auth.js';
import type { TokenSource } from '../../src/github/token-source.js';
import { BASE, type Emulated, emulated } from '../github/emulated.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { APP_ID, installedApp } from '../helpers/github-app.js';
import { type IssueWorld, originGit, runIssueSession } from '../helpers/world.js';
import { GREETING_TYPO, useSessionRepo } from './git/git-fixture.js';

/**
 * Attacks on the token git carries to origin, by a hostile git server on loopback standing where
 * GitHub's git host is (GITHUB_SERVER_URL names it, so the token is given to it): a redirect to
 * another host, and 401 to every token, which must not make issueloop mint tokens without end.
 */

const repo = useSessionRepo(GREETING_TYPO);
let emulator: GitHubEmulator;
let gh: Emulated;
let elsewhere: ListeningEmulator;
let front: Server | undefined;
let mirror: Server | undefined;
/** What the hostile front heard: method, path, and whether it carried a credential. */
let heard: Array<{ method: string; path: string; authorized: boolean }>;

beforeEach(async () => {
  emulator = createGitHubEmulator({ baseUrl: BASE, origin: repo.fx.origin });
  gh = await emulated(repo.stateDir, { emulator });
  // "Another host": the emulator's git server on another port, which logs every token it is sent.
  elsewhere = await emulator.serveGit();
  heard = [];
});

afterEach(async () => {
  await elsewhere?.close();
  await new Promise<void>((resolve) => (front ? front.close(() => resolve()) : resolve()));
  front?.closeAllConnections();
  await new Promise<void>((resolve) => (mirror ? mirror.close(() => resolve()) : resolve()));
  mirror?.closeAllConnections();
  front = undefined;
  mirror = undefined;
});

/**
 * The attacker's host: a readable mirror of the repository (the emulator's git server behind it, fed
 * the attacker's own token when a request brings none), recording every credential it is sent.
 */
async function attackerMirror(attackerToken: string, sent: string[]): Promise<string> {
  const upstream = new URL(elsewhere.url);
  const own = `basic ${Buffer.from(`x-access-token:${attackerToken}`).toString('base64')}`;
  mirror = createServer((req, res) => {
    if (req.headers.authorization) sent.push(req.headers.authorization);
    const headers = { ...req.headers, host: upstream.host, authorization: req.headers.authorization ?? own };
    const out = request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(out);
  });
  await new Promise<void>((resolve) => mirror?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(mirror.address() as AddressInfo).port}`;
}

/** A loopback git server answering every request with `answer`; origin is set to it. */
async function hostileOrigin(answer: (path: string) => { status: number; headers: Record<string, string> }) {
  front = createServer((req, res) => {
    const path = req.url ?? '/';
    heard.push({ method: req.method ?? 'GET', path, authorized: req.headers.authorization !== undefined });
    const { status, headers } = answer(path);
    res.writeHead(status, headers);
    res.end();
    req.resume();
  });
  await new Promise<void>((resolve) => front?.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}/octo-org/widgets.git`;
  repo.fx.git(repo.fx.checkout, 'remote', 'set-url', 'origin', url);
  return { url, env: { GITHUB_SERVER_URL: new URL(url).origin } };
}

const world = (): IssueWorld => ({ repo, gh });
const fix = () =>
  reply.toolUse([
    {
      name: 'str_replace_based_edit_tool',
      input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
    },
  ]);

describe("a hostile git server at GitHub's host", () => {
  it('origin-redirect-leaks-token: a redirect to another host gets neither the token nor the push', async () => {
    const attacker = 'ghp_attackersOwnToken0123456789abcdefghij';
    emulator.addToken(attacker, { login: 'octocat', kind: 'classic' });
    const sent: string[] = [];
    const target = await attackerMirror(attacker, sent);
    const { env } = await hostileOrigin((path) => ({
      status: 307,
      headers: { location: `${target}${path}` },
    }));
    const token = 'ghs_redirectAttack0123456789abcdefghijkl';
    emulator.addToken(token, { login: 'issueloop-bot', kind: 'installation' });
    const source: TokenSource = { kind: 'app', token: async () => token, renew: async () => undefined };
    const { report, number } = await runIssueSession(world(), {
      script: [fix(), reply.text('Fixed.')],
      env,
      tokenSource: source,
      secrets: [token],
    });
    // The attack ran: git sent its token to origin, which answered with the redirect.
    expect(heard.some((r) => r.authorized && r.path.includes('service=git-upload-pack'))).toBe(true);
    expect(report.outcome).not.toBe('resolved');
    expect(sent).toEqual([]);
    expect(emulator.gitRequests.filter((r) => r.token === token)).toEqual([]);
    expect(() => originGit(repo)('rev-parse', '--verify', `refs/heads/issueloop/issue-${number}`)).toThrow();
    expect(report.reason).not.toContain(token);
    expect(report.reason).toContain('returned error: 307');
    expect(report.reason).toContain('set origin to the repository');
  });

  it('renew storm: a git server refusing every token makes issueloop mint one more, once per git command, and the session ends as the run’s auth failure', async () => {
    const { env } = await hostileOrigin(() => ({
      status: 401,
      headers: { 'www-authenticate': 'Basic realm="GitHub"' },
    }));
    // On the emulator's clock (this process's), which judges the App's JWT.
    const clock = new FakeClock(Date.now());
    const app = installedApp(emulator);
    let mints = 0;
    const redact = createRedactor([]);
    const source = createAppTokenSource({
      appId: APP_ID,
      privateKey: app.privateKeyPem,
      repo: { owner: 'octo-org', name: 'widgets' },
      apiUrl: BASE,
      userAgent: 'issueloop/test',
      clock,
      fetch: async (input, init) => {
        const url = input instanceof Request ? input.url : String(input);
        if (url.endsWith('/access_tokens')) mints += 1;
        return emulator.fetch(input, init);
      },
      onToken: (token) => redact.learn?.(token),
    });
    const { report } = await runIssueSession(world(), {
      script: [fix(), reply.text('Fixed.')],
      env,
      tokenSource: source,
    });
    const refused = heard.filter((r) => r.authorized).length;
    expect(refused).toBeGreaterThanOrEqual(2);
    expect(report.outcome).toBe('error:auth');
    expect(report.reason).toContain('and again a renewed one');
    // The first token and one renewal for the one git command that met the refusal: no loop.
    expect(mints).toBe(2);
  });
});
