import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/core/random.js';
import { reply } from '../../src/emulators/anthropic/index.js';
import { createGitHubEmulator, type GitHubEmulator } from '../../src/emulators/github/index.js';
import type { ListeningEmulator } from '../../src/emulators/github/types.js';
import { createAppTokenSource } from '../../src/github/app-auth.js';
import type { TokenSource } from '../../src/github/token-source.js';
import { createRunFailureMonitor } from '../../src/scheduler/run-failure.js';
import { BASE, type Emulated, emulated } from '../github/emulated.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { APP_ID, INSTALLATION_ID, installedApp } from '../helpers/github-app.js';
import { type IssueWorld, originGit, runIssueSession } from '../helpers/world.js';
import { GREETING_TYPO, useSessionRepo } from './git/git-fixture.js';

/**
 * An issue's session whose origin is the GitHub emulator's git over HTTP, which checks every
 * request's token: the branch is fetched and pushed with the token its TokenSource holds at that
 * moment, as with an App's installation tokens over a long drain.
 */

const BOT = 'issueloop-bot';
const repo = useSessionRepo(GREETING_TYPO);
let emulator: GitHubEmulator;
let gh: Emulated;
let server: ListeningEmulator;

beforeEach(async () => {
  emulator = createGitHubEmulator({ baseUrl: BASE, origin: repo.fx.origin });
  gh = await emulated(repo.stateDir, { emulator });
  server = await emulator.serveGit();
  repo.fx.git(repo.fx.checkout, 'remote', 'set-url', 'origin', server.url);
});

afterEach(async () => {
  await server?.close();
});

const world = (): IssueWorld => ({ repo, gh });
/** GitHub's host as git sees it: the token is given to origin only when it is GitHub's (githubHosts). */
const env = () => ({ GITHUB_SERVER_URL: new URL(server.url).origin });

let minted = 0;
function mint(): string {
  minted += 1;
  const token = `ghs_session${minted}x0123456789abcdefghijklmnop`;
  emulator.addToken(token, { login: BOT, kind: 'installation' });
  return token;
}

const fix = () =>
  reply.toolUse([
    {
      name: 'str_replace_based_edit_tool',
      input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
    },
  ]);
const showEnv = () => reply.toolUse([{ name: 'bash', input: { command: 'env' } }]);

describe("an issue's session against a token-checked origin", () => {
  it('pushes the branch with the token current at push time, never the one it started with', async () => {
    // Each ask is a new token and the one before stops working: only a token asked for at that moment works.
    const handedOut: string[] = [];
    const source: TokenSource = {
      kind: 'app',
      async token() {
        const previous = handedOut.at(-1);
        if (previous !== undefined) emulator.revokeToken(previous);
        handedOut.push(mint());
        return handedOut.at(-1) as string;
      },
      renew: async () => undefined,
    };
    const { report, number, anthropic } = await runIssueSession(world(), {
      script: [showEnv(), fix(), reply.text('Fixed.')],
      env: env(),
      tokenSource: source,
    });

    expect(report.outcome).toBe('resolved');
    const branch = `issueloop/issue-${number}`;
    expect(originGit(repo)('rev-parse', `refs/heads/${branch}`)).toBe(report.commit);
    expect(emulator.pulls()[0]).toMatchObject({ head: { ref: branch } });

    const pushes = emulator.gitRequests.filter((r) => r.service === 'git-receive-pack');
    expect(pushes.length).toBeGreaterThan(0);
    expect(handedOut.length).toBeGreaterThan(1);
    expect(pushes.map((r) => r.token)).toEqual(pushes.map(() => handedOut.at(-1)));
    expect(emulator.gitRequests.map((r) => r.status)).toEqual(emulator.gitRequests.map(() => 200));
    expect(pushes[0]?.token).not.toBe(emulator.gitRequests[0]?.token);

    // Neither the checkout's config nor the agent's environment ever held a token or its header.
    const config = await readFile(join(repo.fx.checkout, '.git', 'config'), 'utf8');
    expect(config).toContain(server.url);
    expect(config).not.toMatch(/extraheader/i);
    const seen = JSON.stringify(anthropic.requests);
    expect(seen).toContain('PATH=');
    for (const token of handedOut) {
      expect(seen).not.toContain(token);
      expect(seen).not.toContain(Buffer.from(`x-access-token:${token}`).toString('base64'));
    }
    expect(seen).not.toMatch(/GIT_CONFIG_(COUNT|KEY|VALUE)|extraheader/i);
  });

  it('renews a token revoked while the agent worked, once, and the push lands: nothing charged to the issue', async () => {
    const first = mint();
    const renewed: string[] = [];
    let current = first;
    const source: TokenSource = {
      kind: 'app',
      token: async () => current,
      async renew(rejected) {
        renewed.push(rejected);
        current = mint();
        return current;
      },
    };
    const revokeThenFinish = () => {
      emulator.revokeToken(first);
      return reply.text('Fixed.');
    };
    const { report, number } = await runIssueSession(world(), {
      script: [fix(), revokeThenFinish],
      env: env(),
      tokenSource: source,
    });

    expect(report.outcome).toBe('resolved');
    expect(renewed).toEqual([first]);
    expect(originGit(repo)('rev-parse', `refs/heads/issueloop/issue-${number}`)).toBe(report.commit);
    const refused = emulator.gitRequests.filter((r) => r.status === 401);
    expect(refused.map((r) => r.token)).toEqual([first]);
    const pushes = emulator.gitRequests.filter((r) => r.service === 'git-receive-pack' && r.status === 200);
    expect(pushes.map((r) => r.token)).toContain(current);
    expect(current).not.toBe(first);
  });

  it("does not send the token to a loopback origin that is not GitHub's: the push is refused", async () => {
    const token = mint();
    const { report } = await runIssueSession(world(), {
      script: [fix(), reply.text('Fixed.')],
      env: { GITHUB_TOKEN: token },
    });
    expect(report.outcome).toBe('error:auth');
    expect(emulator.gitRequests.length).toBeGreaterThan(0);
    expect(emulator.gitRequests.every((r) => r.token === undefined && r.status === 401)).toBe(true);
  });

  it("regression: an App suspended while the agent worked fails the push as the run's auth failure with the App's fix, not as the issue's", async () => {
    const app = installedApp(emulator);
    const source = createAppTokenSource({
      appId: APP_ID,
      privateKey: app.privateKeyPem,
      repo: { owner: 'octo-org', name: 'widgets' },
      apiUrl: BASE,
      userAgent: 'issueloop/test',
      fetch: emulator.fetch,
      // The emulator keeps the system's time here; the source reads the same, and nothing sleeps.
      clock: new FakeClock(Date.now()),
    });
    const first = await source.token();
    // The organisation suspends the App: its token stops working and no new one can be minted.
    const suspendThenFinish = () => {
      emulator.suspendInstallation(INSTALLATION_ID);
      emulator.revokeToken(first);
      return reply.text('Fixed.');
    };
    const { report, number } = await runIssueSession(world(), {
      script: [fix(), suspendThenFinish],
      env: env(),
      tokenSource: source,
    });

    // The push was tried with the token of the moment, refused, and the renewal refused as suspended.
    expect(emulator.gitRequests.filter((r) => r.status === 401).map((r) => r.token)).toContain(first);
    const mints = emulator.requests.filter(
      (r) => r.path === `/app/installations/${INSTALLATION_ID}/access_tokens`,
    );
    expect(mints.map((r) => r.status)).toEqual([201, 403]);
    expect(report.outcome).toBe('error:auth');
    expect(report.reason).toMatch(/installation on octo-org is suspended.*Unsuspend/s);
    expect(() =>
      originGit(repo)('rev-parse', '--verify', '--quiet', `refs/heads/issueloop/issue-${number}`),
    ).toThrow();
    // So the run stops on it at once, charging the issue nothing, and says the App's fix.
    const cause = createRunFailureMonitor(createSeededRandom(1)).judge(report);
    expect(cause).toMatchObject({ errorClass: 'auth' });
    expect(cause?.fix).toMatch(/GitHub App/);
  });
});
