import { describe, expect, it } from 'vitest';
import { classifyError } from '../../../src/core/classify/classify-error.js';
import { CLASS_POLICY, ERROR_CLASSES } from '../../../src/core/classify/policy.js';
import { matchLine, TEXT_PATTERNS } from '../../../src/core/classify/text-patterns.js';

/** Unstructured input: log tails of a CLI run (the Claude Code engine), plain error messages. */

describe('text fallback table', () => {
  for (const row of TEXT_PATTERNS) {
    it(`${row.errorClass} ← ${row.pattern.source.slice(0, 60)}: its example matches and is not shadowed`, () => {
      expect(row.pattern.test(row.example)).toBe(true);
      expect(matchLine(row.example)?.errorClass).toBe(row.errorClass);
      expect(classifyError(row.example).errorClass).toBe(row.errorClass);
    });
  }

  it('every class has exactly one action in the policy', () => {
    for (const errorClass of ERROR_CLASSES) expect(CLASS_POLICY[errorClass].action).toBeTruthy();
    expect(Object.keys(CLASS_POLICY).sort()).toEqual([...ERROR_CLASSES].sort());
  });
});

describe('classifyError on CLI log tails', () => {
  const cases: Array<{ name: string; tail: string; errorClass: string; action: string }> = [
    {
      name: 'Claude Code result with an API 429 body',
      tail: 'Working on it...\nAPI Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account\'s rate limit. Please try again later."},"request_id":"req_011CcR9mkMvXdaiWP4739PSN"}',
      errorClass: 'rate_limit',
      action: 'retry_backoff',
    },
    {
      name: 'spend limit inside a 429 body is billing',
      tail: 'Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"You have reached your API usage limits.","details":{"error_code":"enforced_spend_limit_reached"}}}',
      errorClass: 'billing',
      action: 'fail_fast',
    },
    {
      name: 'overloaded body',
      tail: 'Error: {"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CcHM6P2JkSnZJzjSRaJNJ"}',
      errorClass: 'overloaded',
      action: 'failover',
    },
    {
      name: 'context_length exceeded',
      tail: 'Error: context_length exceeded',
      errorClass: 'context_overflow',
      action: 'compact',
    },
    { name: '401 Unauthorized', tail: 'Error 401 Unauthorized', errorClass: 'auth', action: 'fail_fast' },
    {
      name: 'killed by SIGTERM',
      tail: 'claude exited: killed by signal SIGTERM',
      errorClass: 'timeout',
      action: 'retry_once',
    },
    {
      name: 'deadline exceeded',
      tail: 'Error: context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
      errorClass: 'timeout',
      action: 'retry_once',
    },
    {
      name: 'DNS failure',
      tail: 'Error: getaddrinfo ENOTFOUND api.anthropic.com',
      errorClass: 'network',
      action: 'retry_once',
    },
    {
      name: 'the newest failure line decides',
      tail: 'Error 429 Too Many Requests\nretrying...\nError: read ECONNRESET',
      errorClass: 'network',
      action: 'retry_once',
    },
    {
      name: 'git push rejected for permissions',
      tail: "remote: Permission to acme/widgets.git denied to issueloop-bot.\nfatal: unable to access 'https://github.com/acme/widgets.git/': The requested URL returned error: 403",
      errorClass: 'permission',
      action: 'fail_fast',
    },
    { name: 'nothing recognisable', tail: 'Something went wrong', errorClass: 'unknown', action: 'diagnose' },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const result = classifyError(c.tail);
      expect([result.errorClass, result.action, result.retryAfterMs]).toEqual([
        c.errorClass,
        c.action,
        undefined,
      ]);
    });
  }

  it('GitHub CLI rate limits are rate limits, not permission errors', () => {
    expect(classifyError('gh: HTTP 403: API rate limit exceeded for user ID 1234.').errorClass).toBe(
      'rate_limit',
    );
    expect(classifyError('HTTP 403: You have exceeded a secondary rate limit.').errorClass).toBe(
      'rate_limit',
    );
  });

  it('git push failures', () => {
    const cases: Array<[string, string]> = [
      [' ! [rejected]        issueloop/issue-7 -> issueloop/issue-7 (non-fast-forward)', 'conflict'],
      [' ! [rejected]        main -> main (stale info)', 'conflict'],
      ['remote: Repository not found.\nfatal: repository not found', 'not_found'],
      [
        "fatal: unable to access 'https://github.com/acme/w.git/': Could not resolve host: github.com",
        'network',
      ],
      ['remote: error: GH006: Protected branch update failed for refs/heads/main.', 'permission'],
      ["fatal: Authentication failed for 'https://github.com/acme/widgets.git/'", 'auth'],
    ];
    for (const [tail, errorClass] of cases) expect(classifyError(tail).errorClass, tail).toBe(errorClass);
  });

  it('names the GitHub token for a git or gh authentication failure', () => {
    expect(classifyError("fatal: Authentication failed for 'https://github.com/acme/w.git/'").hint).toContain(
      'GITHUB_TOKEN',
    );
    expect(classifyError('Invalid API key · Please run /login').hint).toContain('ANTHROPIC_API_KEY');
  });

  it('reports the newest line of an unrecognised tail', () => {
    const result = classifyError('step 1 ok\nstep 2 ok\nSomething odd happened\n');
    expect([result.errorClass, result.message]).toEqual(['unknown', 'Something odd happened']);
  });

  it('reports the line that matched, not the whole tail', () => {
    const result = classifyError('compiling...\nwrote 3 files\nError 429 Too Many Requests\n');
    expect(result.message).toBe('Error 429 Too Many Requests');
    expect(result.source).toBe('text');
  });
});

describe('Claude Code JSON result lines', () => {
  const result = (isError: boolean, text: string) =>
    JSON.stringify({
      type: 'result',
      subtype: isError ? 'error_during_execution' : 'success',
      is_error: isError,
      result: text,
      session_id: 's1',
    });

  it('a successful result is not a failure, whatever its text says', () => {
    for (const text of [
      'Implemented retry on HTTP 429 responses',
      'added a 30s timeout',
      'Fixed the invalid API key error message',
    ]) {
      expect(classifyError(result(false, text)).errorClass, text).toBe('unknown');
    }
  });

  it('a failed result is classified by its result text', () => {
    expect(classifyError(result(true, 'API Error: Connection error.')).errorClass).toBe('network');
    expect(classifyError(result(true, '5-hour limit reached ∙ resets 3pm')).errorClass).toBe('rate_limit');
    const billing = classifyError(`starting\n${result(true, 'Credit balance is too low')}`);
    expect([billing.errorClass, billing.message]).toEqual(['billing', 'Credit balance is too low']);
  });
});

describe('ordinary content does not classify (openclaw billing false positives)', () => {
  const prose = [
    'Fixed the parser bug reported in issue #429 and updated 402 snapshot files.',
    'Total: 429 tests, 402 passed, 27 skipped',
    'line 402: const retries = 429;',
    'Implemented rate limiting middleware and a DNS cache for the resolver',
    'Added a timeout option to the HTTP client',
    'Refactored the network layer; see docs/network.md',
  ];
  const errorsThatAreNotThoseClasses: Array<[string, string]> = [
    ["Error: Cannot find module '/app/src/timeout-utils.js'", 'unknown'],
    ['TypeError: invalid key passed to Map.get', 'unknown'],
    ['Error: failed to parse DNS record fixture', 'unknown'],
    ['Error: tools.0.custom.description: billing_helper must be a string', 'unknown'],
  ];
  for (const [text, errorClass] of errorsThatAreNotThoseClasses) {
    it(`regression: ${JSON.stringify(text)} → ${errorClass}`, () => {
      expect(classifyError(new Error(text)).errorClass).toBe(errorClass);
    });
  }
  for (const text of prose) {
    it(JSON.stringify(text), () => {
      const result = classifyError(text);
      expect([result.errorClass, result.action]).toEqual(['unknown', 'diagnose']);
    });
  }

  it('a bare number on a failure line does not classify either', () => {
    expect(classifyError("Error: test 'keeps issue 429 open' failed").errorClass).toBe('unknown');
    expect(classifyError(new Error('expected 402 rows, got 0')).errorClass).toBe('unknown');
    expect(classifyError(new Error('FAIL src/parser.test.ts > line 401 of fixture')).errorClass).toBe(
      'unknown',
    );
  });

  it('regression: a status line such as "HTTP 402 Payment Required" counts as a failure line', () => {
    expect(classifyError('HTTP 402 Payment Required').errorClass).toBe('billing');
    expect(classifyError('request failed with status code 402').errorClass).toBe('billing');
  });
});

describe('plain Error messages', () => {
  it('an Error with only a message uses the text table on every line', () => {
    expect(classifyError(new Error('socket hang up')).errorClass).toBe('network');
    expect(classifyError(new Error('rate limit exceeded')).errorClass).toBe('rate_limit');
  });

  it('an Error with an unknown message asks for a diagnosis', () => {
    const result = classifyError(new Error('unexpected token in JSON at position 12'));
    expect([result.errorClass, result.action, result.retryable]).toEqual(['unknown', 'diagnose', false]);
  });

  it('non-errors classify as unknown', () => {
    expect(classifyError(undefined).errorClass).toBe('unknown');
    expect(classifyError(42).errorClass).toBe('unknown');
    expect(classifyError({}).errorClass).toBe('unknown');
  });

  it('the user-facing message is redacted and one line', () => {
    const token = `ghp_${'a'.repeat(36)}`;
    // The token on the line the class is read from, so the message would carry it unredacted.
    const result = classifyError(new Error(`Bad credentials for ${token}\n(401)`), {
      redact: (text) => text.replaceAll(token, '[REDACTED]'),
    });
    expect(result.message).toMatch(/^Bad credentials for \[REDACTED\]/);
    expect(result.message).not.toContain(token);
    const multiline = classifyError(new Error('unexpected thing\n  at step two\n'));
    expect(multiline.message).toBe('unexpected thing at step two');
    expect(multiline.message).not.toContain('\n');
  });

  it('redacts known token shapes even without configured secrets', () => {
    const key = `sk-ant-api03-${'x'.repeat(40)}`;
    const message = classifyError(new Error(`invalid x-api-key ${key}`)).message;
    expect(message).toContain('invalid x-api-key');
    expect(message).not.toContain(key);
  });

  it('an overlong message is cut to one short line', () => {
    expect(classifyError(new Error('x'.repeat(5000))).message.length).toBeLessThanOrEqual(300);
  });
});
