import { describe, expect, it } from 'vitest';
import { configCopy } from '../../../src/engines/claude-code/config-copy.js';

/**
 * Red team (issue 29): the copy of `~/.claude.json` the hostile `claude` reads holds the user's other
 * credentials when they are spelled in ways the scrubber's key pattern misses: an MCP server's
 * `X-Api-Key` header (a hyphen, where the pattern wants `api_key` or `apikey`), its `Cookie`, and a
 * URL with a password in a server's `url` or `args` (which the environment's scrubbing removes, and
 * the README promises for the copy: "any key named like a key, token, secret, password or auth").
 */
const USER_CONFIG = {
  mcpServers: {
    api: {
      type: 'http',
      url: 'https://mcp.example.com/',
      headers: { 'X-Api-Key': 'hdr-key-0123456789', Cookie: 'session=cookie-0123456789' },
    },
    db: { command: 'postgres-mcp', args: ['postgresql://admin:db-pass-0123456789@db.internal/prod'] },
  },
  projects: {
    '/home/dev/payroll': {
      mcpServers: { y: { type: 'http', url: 'https://bot:proj-pass-0123456789@h.example/' } },
    },
  },
};

describe("the copy of the user's ~/.claude.json", () => {
  it('red: keeps an MCP server’s X-Api-Key and Cookie headers, and URLs with a password', () => {
    const copy = configCopy('.claude.json', JSON.stringify(USER_CONFIG), []) ?? '';
    // The copy is made (settings keep working), and the server definitions are still there.
    expect(copy).toContain('mcp.example.com');
    const leaked = [
      'hdr-key-0123456789',
      'cookie-0123456789',
      'db-pass-0123456789',
      'proj-pass-0123456789',
    ].filter((value) => copy.includes(value));
    expect(leaked).toEqual([]);
  });
});
