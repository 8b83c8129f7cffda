import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../../src/core/redact.js';
import { createGitHubEmulator, type GitHubEmulator } from '../../../src/emulators/github/index.js';
import type { ListeningEmulator } from '../../../src/emulators/github/types.js';
import { fixedToken, type TokenSource } from '../../../src/github/token-source.js';
import { GitError } from '../../../src/session/git/git-error.js';
import {
  fetchBranch,
  pushBranch,
  type RemoteTarget,
  remoteBranchSha,
} from '../../../src/session/git/remote.js';
import { createGitFixture, type GitFixture } from './git-fixture.js';

/**
 * Every git fetch, ls-remote and push asks the remote's TokenSource for the token of that moment,
 * against the emulator's token-checked git server; a refused token is renewed once.
 */

const BOT = 'issueloop-bot';
let fx: GitFixture;
let emulator: GitHubEmulator;
let server: ListeningEmulator;
let minted = 0;

beforeAll(async () => {
  fx = await createGitFixture();
  emulator = createGitHubEmulator({ origin: fx.origin });
  server = await emulator.serveGit();
});

afterAll(async () => {
  await server?.close();
  await fx?.cleanup();
});

beforeEach(() => {
  emulator.gitRequests.length = 0;
});

/** A token GitHub takes from now on (as an App's fresh installation token would be). */
function mint(): string {
  minted += 1;
  const token = `ghs_minted${minted}x0123456789abcdefghijklmnopqrst`;
  emulator.addToken(token, { login: BOT, kind: 'installation' });
  return token;
}

/** An App-like source: `current` is what it hands out; `renew` hands out the next of `renewals`. */
function scriptedSource(first: string, renewals: string[] = []) {
  const state = { current: first, renewedAfter: [] as string[] };
  const source: TokenSource = {
    kind: 'app',
    token: async () => state.current,
    async renew(rejected) {
      state.renewedAfter.push(rejected);
      const next = renewals.shift();
      if (next !== undefined) state.current = next;
      return next;
    },
  };
  return { source, state };
}

const target = (credential: TokenSource): RemoteTarget => ({ name: 'origin', url: server.url, credential });
const redact = createRedactor([]);

/** A new commit in the checkout, on a detached HEAD so each test's branch is its own. */
function commit(message: string): string {
  fx.git(fx.checkout, 'commit', '--quiet', '--allow-empty', '-m', message);
  return fx.git(fx.checkout, 'rev-parse', 'HEAD');
}

const tokensOf = (service: string) =>
  emulator.gitRequests.filter((r) => r.service === service && r.status === 200).map((r) => r.token);

describe('the token of each git request to the remote', () => {
  it("is the source's token at that moment: a push and a fetch after it changed send the new one", async () => {
    const first = mint();
    const { source, state } = scriptedSource(first);
    const remote = target(source);
    const one = commit('first push');
    await pushBranch(
      fx.checkout,
      { remote, branch: 'rotating', expectedRemoteSha: undefined },
      { env: fx.env, redact },
    );
    expect(new Set(tokensOf('git-receive-pack'))).toEqual(new Set([first]));

    const second = mint();
    emulator.revokeToken(first);
    state.current = second;
    emulator.gitRequests.length = 0;
    expect(await fetchBranch(fx.checkout, remote, 'rotating', { env: fx.env, redact })).toBe(one);
    expect(await remoteBranchSha(fx.checkout, remote, 'rotating', { env: fx.env, redact })).toBe(one);
    const two = commit('second push');
    await pushBranch(
      fx.checkout,
      { remote, branch: 'rotating', expectedRemoteSha: one },
      { env: fx.env, redact },
    );

    expect(fx.git(fx.root, '--git-dir', fx.origin, 'rev-parse', 'rotating')).toBe(two);
    expect(tokensOf('git-upload-pack').length).toBeGreaterThanOrEqual(2);
    expect(tokensOf('git-receive-pack').length).toBeGreaterThanOrEqual(1);
    expect(emulator.gitRequests.map((r) => r.token)).toEqual(emulator.gitRequests.map(() => second));
    expect(state.renewedAfter).toEqual([]);
  });

  it('renews once when the token was revoked between two pushes, and the retry pushes', async () => {
    const first = mint();
    const { source, state } = scriptedSource(first, [mint()]);
    const remote = target(source);
    const one = commit('before the revocation');
    await pushBranch(
      fx.checkout,
      { remote, branch: 'revoked', expectedRemoteSha: undefined },
      { env: fx.env, redact },
    );
    emulator.revokeToken(first);
    emulator.gitRequests.length = 0;

    const two = commit('after the revocation');
    await pushBranch(
      fx.checkout,
      { remote, branch: 'revoked', expectedRemoteSha: one },
      { env: fx.env, redact },
    );
    expect(state.renewedAfter).toEqual([first]);
    expect(fx.git(fx.root, '--git-dir', fx.origin, 'rev-parse', 'revoked')).toBe(two);
    expect(emulator.gitRequests[0]).toMatchObject({ status: 401, token: first });
    expect(tokensOf('git-receive-pack')).toContain(state.current);
    expect(state.current).not.toBe(first);
  });

  it('a second refusal fails as an auth error that names the fix, and leaves the branch unmoved', async () => {
    const first = mint();
    const refusedToo = 'ghs_renewedButNeverTakenByGitHub0123456789';
    const { source, state } = scriptedSource(first, [refusedToo]);
    const remote = target(source);
    const one = commit('lands');
    await pushBranch(
      fx.checkout,
      { remote, branch: 'refused', expectedRemoteSha: undefined },
      { env: fx.env, redact },
    );
    emulator.revokeToken(first);
    commit('never lands');

    const push = pushBranch(
      fx.checkout,
      { remote, branch: 'refused', expectedRemoteSha: one },
      { env: fx.env, redact },
    );
    const error = await push.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitError);
    expect(error).toMatchObject({ errorClass: 'auth' });
    expect((error as GitError).message).toMatch(
      /git .*push.* failed.*GitHub refused the token, and again a renewed one: .*App is installed on the repository/,
    );
    expect(state.renewedAfter).toEqual([first]);
    expect(fx.git(fx.root, '--git-dir', fx.origin, 'rev-parse', 'refused')).toBe(one);
  });

  it('a fixed token GitHub refuses is not retried: an auth error that says to set GITHUB_TOKEN', async () => {
    const revoked = mint();
    emulator.revokeToken(revoked);
    const error = await remoteBranchSha(fx.checkout, target(fixedToken(revoked)), 'main', {
      env: fx.env,
      redact,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ errorClass: 'auth' });
    expect((error as GitError).message).toContain(
      'set GH_TOKEN or GITHUB_TOKEN (GH_TOKEN wins) to a token GitHub accepts',
    );
    expect(emulator.gitRequests.filter((r) => r.token === revoked)).toHaveLength(1);
  });

  it('a push the token may not make (403) is a permission error naming the access it needs', async () => {
    const reader = 'ghs_readOnlyInstallation0123456789abcdef';
    emulator.addToken(reader, { login: 'reader[bot]', kind: 'installation' });
    emulator.setPermission('reader[bot]', 'read');
    commit('not allowed');
    const { source, state } = scriptedSource(reader, [reader]);
    const push = pushBranch(
      fx.checkout,
      { remote: target(source), branch: 'forbidden', expectedRemoteSha: undefined },
      { env: fx.env, redact },
    );
    const error = await push.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ errorClass: 'permission' });
    expect((error as GitError).message).toContain('Contents read & write');
    expect(state.renewedAfter).toEqual([reader]);
    expect(emulator.gitRequests.at(-1)).toMatchObject({ status: 403, token: reader });
  });

  it('a stale lease over HTTP is still a conflict, not an auth failure, and renews nothing', async () => {
    const token = mint();
    const { source, state } = scriptedSource(token);
    const remote = target(source);
    const one = commit('ours');
    await pushBranch(
      fx.checkout,
      { remote, branch: 'leased', expectedRemoteSha: undefined },
      { env: fx.env, redact },
    );
    commit('moved on');
    // What the branch was before `one`: someone else's view of it, no longer true.
    const stale = fx.git(fx.checkout, 'rev-parse', `${one}~1`);
    const error = await pushBranch(
      fx.checkout,
      { remote, branch: 'leased', expectedRemoteSha: stale },
      { env: fx.env, redact },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ errorClass: 'conflict' });
    expect(state.renewedAfter).toEqual([]);
    expect(fx.git(fx.root, '--git-dir', fx.origin, 'rev-parse', 'leased')).toBe(one);
  });

  it("never writes the token to the checkout's git config", async () => {
    const token = mint();
    const { source } = scriptedSource(token);
    await fetchBranch(fx.checkout, target(source), 'main', { env: fx.env, redact });
    expect(tokensOf('git-upload-pack')).toContain(token);
    const config = await readFile(join(fx.checkout, '.git', 'config'), 'utf8');
    expect(config).toContain('[remote "origin"]');
    expect(config).not.toContain('extraheader');
    expect(config).not.toContain(Buffer.from(`x-access-token:${token}`).toString('base64'));
    expect(JSON.stringify(target(source))).not.toContain(token);
  });
});
