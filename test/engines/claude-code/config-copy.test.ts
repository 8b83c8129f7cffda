import { describe, expect, it } from 'vitest';
import { configCopy } from '../../../src/engines/claude-code/config-copy.js';

const copyOf = (config: unknown) =>
  JSON.parse(configCopy('.claude.json', JSON.stringify(config), []) ?? '{}');

describe("the copy of the user's ~/.claude.json: credentials spelled any way", () => {
  it('drops a key named like a credential whatever separates its words', () => {
    const names = [
      'api-key',
      'x-api-key',
      'X-Api-Key',
      'apiKey',
      'API_KEY',
      'api.key',
      'x-auth-token',
      'Cookie',
      'Authorization',
      'bearer',
      'session',
      'privateKey',
      'client_secret',
    ];
    const headers = Object.fromEntries(names.map((name, i) => [name, `value-${i}-0123456789`]));
    const copy = copyOf({ mcpServers: { s: { type: 'http', url: 'https://h.example/', headers } } });
    expect(copy.mcpServers.s.headers).toEqual({});
    expect(copy.mcpServers.s.url).toBe('https://h.example/');
  });

  it('drops a value that is a credential under any name, and the password of any URL (the user name stays)', () => {
    const copy = copyOf({
      mcpServers: {
        s: { type: 'http', url: 'https://h.example/', headers: { 'X-Custom': 'Bearer abcdef0123456789' } },
        d: {
          command: 'db',
          args: ['--url', 'redis://:r3dis-pass@cache:6379/0', 'see https://u:p%40ss@h.example/x'],
        },
      },
      theme: 'dark',
    });
    expect(copy.mcpServers.s.headers).toEqual({});
    expect(copy.mcpServers.d.args).toEqual(['--url', 'redis://@cache:6379/0', 'see https://u@h.example/x']);
    expect(copy.theme).toBe('dark');
  });

  it('copies a file with nothing to drop byte for byte', () => {
    const text =
      '{\n  "theme": "dark",\n  "mcpServers": {"s": {"command": "x", "args": ["https://h.example/"]}}\n}\n';
    expect(configCopy('.claude.json', text, [])).toBe(text);
  });
});
