import { afterEach, beforeEach } from 'vitest';
import { createAnthropicEmulator, type Script } from '../../src/emulators/anthropic/index.js';
import {
  createGitHubEmulator,
  DEFAULT_TOKEN,
  type GitHubEmulator,
  type ListeningEmulator,
} from '../../src/emulators/github/index.js';
import { createGitFixture, type GitFixture } from '../session/git/git-fixture.js';

export interface RunFixture {
  readonly fx: GitFixture;
  readonly github: GitHubEmulator;
  /** Serves GitHub and a scripted Anthropic on loopback; the env a run needs to reach both. */
  start(
    script: Script,
  ): Promise<{ anthropic: ReturnType<typeof createAnthropicEmulator>; env: Record<string, string> }>;
}

export interface RunFixtureOptions {
  /**
   * Origin served as GitHub's git over HTTP (token-checked, `github.gitRequests`): the checkout's
   * origin is its URL and the env names its host as GitHub's (GITHUB_SERVER_URL).
   */
  gitOverHttp?: boolean;
}

/**
 * For `issueloop run` end to end: a repository with a bare origin whose main has `files`, a checkout
 * of it, and a GitHub emulator for octo-org/widgets; servers and directories go after each test.
 */
export function useRunFixture(files: Record<string, string>, options: RunFixtureOptions = {}): RunFixture {
  let fx: GitFixture | undefined;
  let github: GitHubEmulator | undefined;
  const servers: ListeningEmulator[] = [];
  beforeEach(async () => {
    fx = await createGitFixture();
    fx.commitFiles(fx.seed, files, 'project files');
    fx.git(fx.seed, 'push', '--quiet', 'origin', 'main');
    fx.git(fx.checkout, 'pull', '--quiet');
    github = createGitHubEmulator({
      owner: 'octo-org',
      repo: 'widgets',
      ...(options.gitOverHttp ? { origin: fx.origin } : {}),
    });
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    await fx?.cleanup();
  });
  const need = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('run fixture used outside a test');
    return value;
  };
  return {
    get fx() {
      return need(fx);
    },
    get github() {
      return need(github);
    },
    async start(script) {
      const anthropic = createAnthropicEmulator({ script });
      const [gh, ai] = await Promise.all([need(github).listen(), anthropic.listen()]);
      servers.push(gh, ai);
      let serverUrl: Record<string, string> = {};
      if (options.gitOverHttp) {
        const git = await need(github).serveGit();
        servers.push(git);
        need(fx).git(need(fx).checkout, 'remote', 'set-url', 'origin', git.url);
        serverUrl = { GITHUB_SERVER_URL: new URL(git.url).origin };
      }
      return {
        anthropic,
        env: {
          ...need(fx).env,
          ...serverUrl,
          GITHUB_TOKEN: DEFAULT_TOKEN,
          GITHUB_API_URL: gh.url,
          ANTHROPIC_API_KEY: anthropic.apiKey,
          ANTHROPIC_BASE_URL: ai.url,
          // The emulator answers at once and has no secondary rate limit: no pause between writes.
          ISSUELOOP_GITHUB__WRITE_SPACING: '0s',
        },
      };
    },
  };
}
