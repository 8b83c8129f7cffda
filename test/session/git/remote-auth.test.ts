import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../../src/core/redact.js';
import { fixedToken } from '../../../src/github/token-source.js';
import { resolveOrigin } from '../../../src/run/resolve-origin.js';
import { tokenAuthEnv } from '../../../src/session/git/remote-auth.js';
import { useSessionRepo } from './git-fixture.js';

const TOKEN = 'ghs_remoteAuthToken0123456789abcdefghijk';
const repo = useSessionRepo({ 'a.txt': 'a\n' });
const redact = createRedactor([TOKEN]);

describe('the credentials of a push', () => {
  it("go to git as an extraheader through GIT_CONFIG_* variables, resetting the checkout's own first, with redirects not followed", () => {
    const env = tokenAuthEnv('https://github.com/acme/widgets.git', TOKEN);
    expect(env).toEqual({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_0: 'http.https://github.com/.extraheader',
      GIT_CONFIG_VALUE_0: '',
      GIT_CONFIG_KEY_1: 'http.https://github.com/.extraheader',
      GIT_CONFIG_VALUE_1: `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`,
      GIT_CONFIG_KEY_2: 'http.followRedirects',
      GIT_CONFIG_VALUE_2: 'false',
    });
    expect(tokenAuthEnv('git@github.com:acme/widgets.git', TOKEN)).toEqual({});
    expect(tokenAuthEnv('https://github.com/acme/widgets.git', undefined)).toEqual({});
  });

  it("are given for GitHub's host only: never to another host origin names", async () => {
    const set = (url: string) => repo.fx.git(repo.fx.checkout, 'remote', 'set-url', 'origin', url);
    set('https://github.com/acme/widgets.git');
    const github = await resolveOrigin(repo.fx.checkout, { ...repo.fx.env, GITHUB_TOKEN: TOKEN }, redact);
    expect(github).toMatchObject({ name: 'origin', url: 'https://github.com/acme/widgets.git' });
    expect(await github.credential?.token()).toBe(TOKEN);
    // Asked at each command: nothing of it is kept in the target's environment.
    expect(JSON.stringify(github)).not.toContain(TOKEN);

    set('https://gitlab.example/acme/widgets.git');
    const elsewhere = await resolveOrigin(repo.fx.checkout, { ...repo.fx.env, GITHUB_TOKEN: TOKEN }, redact);
    expect(elsewhere.url).toBe('https://gitlab.example/acme/widgets.git');
    expect(elsewhere.credential).toBeUndefined();

    set('https://ghe.example/acme/widgets.git');
    const enterprise = await resolveOrigin(
      repo.fx.checkout,
      { ...repo.fx.env, GITHUB_TOKEN: TOKEN, GITHUB_API_URL: 'https://ghe.example/api/v3' },
      redact,
    );
    expect(await enterprise.credential?.token()).toBe(TOKEN);

    set('git@github.com:acme/widgets.git');
    const ssh = await resolveOrigin(
      repo.fx.checkout,
      { ...repo.fx.env, GITHUB_TOKEN: TOKEN, SSH_AUTH_SOCK: '/a' },
      redact,
    );
    expect(ssh).toMatchObject({ url: 'git@github.com:acme/widgets.git', env: { SSH_AUTH_SOCK: '/a' } });
    expect(ssh.credential).toBeUndefined();
  });

  it("come from the TokenSource given, over the environment's token", async () => {
    repo.fx.git(repo.fx.checkout, 'remote', 'set-url', 'origin', 'https://github.com/acme/widgets.git');
    const source = fixedToken('ghs_fromTheAppSource0123456789');
    const origin = await resolveOrigin(
      repo.fx.checkout,
      { ...repo.fx.env, GITHUB_TOKEN: TOKEN },
      redact,
      source,
    );
    expect(await origin.credential?.token()).toBe('ghs_fromTheAppSource0123456789');
    expect(TOKEN).not.toBe('ghs_fromTheAppSource0123456789');
    const none = await resolveOrigin(repo.fx.checkout, repo.fx.env, redact);
    expect(none).toMatchObject({ url: 'https://github.com/acme/widgets.git' });
    expect(none.credential).toBeUndefined();
  });

  it('are resolved from remote.origin.url, never a pushurl', async () => {
    repo.fx.git(repo.fx.checkout, 'config', 'remote.origin.pushurl', 'https://evil.example/x.git');
    const origin = await resolveOrigin(repo.fx.checkout, repo.fx.env, redact);
    expect(origin.url).toBe(repo.fx.origin);
  });
});
