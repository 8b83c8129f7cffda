import { describe, expect, it } from 'vitest';
import { repoFromRemote } from '../../src/run/prerequisites.js';

describe('repoFromRemote', () => {
  const hosts = new Set(['github.com', 'ghe.example.com']);

  it('reads owner/name from https, ssh and scp-like GitHub remotes, with or without .git', () => {
    expect(repoFromRemote('https://github.com/acme/widgets.git', hosts)).toBe('acme/widgets');
    expect(repoFromRemote('https://github.com/acme/widgets', hosts)).toBe('acme/widgets');
    expect(repoFromRemote('https://x-access-token:t@github.com/acme/widgets.git', hosts)).toBe(
      'acme/widgets',
    );
    expect(repoFromRemote('ssh://git@github.com/acme/widgets.git', hosts)).toBe('acme/widgets');
    expect(repoFromRemote('git@github.com:acme/widgets.git', hosts)).toBe('acme/widgets');
    expect(repoFromRemote('git@ghe.example.com:team/tool.git', hosts)).toBe('team/tool');
  });

  it('leaves every other remote alone', () => {
    expect(repoFromRemote('https://gitlab.com/acme/widgets.git', hosts)).toBeUndefined();
    expect(repoFromRemote('git@gitlab.com:acme/widgets.git', hosts)).toBeUndefined();
    expect(repoFromRemote('/srv/git/widgets.git', hosts)).toBeUndefined();
    expect(repoFromRemote('https://github.com/acme', hosts)).toBeUndefined();
    expect(repoFromRemote('https://github.com/acme/widgets/tree/main', hosts)).toBeUndefined();
  });
});
