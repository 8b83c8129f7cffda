import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redact } from '../../src/core/redact.js';

const tokens = {
  classic: `ghp_${'A1b2C3d4E5'.repeat(3)}xyz123`,
  oauth: `gho_${'Z'.repeat(36)}`,
  server: `ghs_${'k9'.repeat(18)}`,
  user: `ghu_${'u'.repeat(36)}`,
  fineGrained: `github_pat_11ABCDEFG0${'x'.repeat(20)}_${'Y'.repeat(59)}`,
  anthropic: `sk-ant-api03-${'Ab3-_'.repeat(18)}AA`,
};

describe('redact', () => {
  for (const [kind, token] of Object.entries(tokens)) {
    it(`removes a ${kind} token wherever it stands, the whole of it`, () => {
      const text = `token=${token}; again "${token}" and at the end ${token}`;
      expect(redact(text)).toBe(`token=${REDACTED}; again "${REDACTED}" and at the end ${REDACTED}`);
    });
  }

  it('regression: a GitHub token followed by an underscore passed the redactor whole', () => {
    const token = tokens.classic;
    expect(redact(`TOKEN=${token}_suffix and ${token}_`)).toBe(`TOKEN=${REDACTED}_suffix and ${REDACTED}_`);
    expect(redact(`key ${token}_x`, { markdown: true })).toBe(`key ${REDACTED}_x`);
  });

  it('regression: a header logged as JSON, without spaces or with extra ones, still loses its credential', () => {
    const R = REDACTED;
    const cases: Record<string, string> = {
      '{"authorization":"Bearer abc.def"}': `{"authorization":"Bearer ${R}"}`,
      "{'x-api-key': 'my-private-key-123'}": `{'x-api-key': '${R}'}`,
      'Authorization:Bearer abc.def': `Authorization:Bearer ${R}`,
      'AUTHORIZATION = token  abc.def': `AUTHORIZATION = token ${R}`,
      'x-api-key:my-private-key-123 next': `x-api-key:${R} next`,
      'X-Api-Key = my-private-key-123': `X-Api-Key = ${R}`,
    };
    for (const [text, clean] of Object.entries(cases)) expect(redact(text), text).toBe(clean);
  });

  it('regression: a redactor without secrets leaves the word undefined alone in a multi-line text', () => {
    const text = 'value is undefined\nnext line';
    expect(createRedactor([])(text)).toBe(text);
  });

  it('removes credentials after an authorization scheme and in x-api-key headers', () => {
    const out = redact(
      'authorization: Bearer abc.def.ghi\nx-api-key: my-private-key-123\nAuthorization: token zzz',
    );
    expect(out).toBe(
      `authorization: Bearer ${REDACTED}\nx-api-key: ${REDACTED}\nAuthorization: token ${REDACTED}`,
    );
  });

  it('removes the password of a URL but keeps the host', () => {
    expect(redact('connecting to redis://default:s3cret-pass@cache.internal:6379/0')).toBe(
      'connecting to redis://default:[REDACTED]@cache.internal:6379/0',
    );
  });

  it('removes a token used as the whole user-info of a URL', () => {
    const token = 'a'.repeat(40);
    expect(redact(`git push https://${token}@github.com/acme/w.git`)).toBe(
      'git push https://[REDACTED]@github.com/acme/w.git',
    );
  });

  it('removes credentials from query strings', () => {
    expect(redact('GET https://proxy.example/v1?key=supersecretvalue&model=x&access_token=abc123')).toBe(
      'GET https://proxy.example/v1?key=[REDACTED]&model=x&access_token=[REDACTED]',
    );
  });

  it('leaves ordinary text alone', () => {
    const text = 'ghp_ is the prefix of classic tokens; sk-ant- starts Anthropic keys. Issue #42 is fixed.';
    expect(redact(text)).toBe(text);
  });

  it('removes configured secret values, including their JSON-escaped form', () => {
    const secret = 'p@ss"word\\with-quotes';
    const redactor = createRedactor([secret, undefined, '']);
    const line = JSON.stringify({ msg: `login with ${secret}` });
    expect(redactor(line)).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(redactor(`raw ${secret}`)).toBe(`raw ${REDACTED}`);
  });

  it('removes the longer of two overlapping secrets whole', () => {
    const redactor = createRedactor(['abcd', 'abcdefgh']);
    expect(redactor('x abcdefgh y')).toBe(`x ${REDACTED} y`);
  });

  it('ignores secret values too short to redact safely', () => {
    expect(createRedactor(['1', 'ab'])('1 ab 12 abc')).toBe('1 ab 12 abc');
  });

  it('regression: a secret of exactly the minimum length is removed', () => {
    expect(createRedactor(['q7x2'])('pin q7x2 set')).toBe(`pin ${REDACTED} set`);
  });

  it('looks for a short secret split over lines nowhere (it would match ordinary text), a long one everywhere', () => {
    expect(createRedactor(['q7x2'])('q7\nx2 and q7x2')).toBe(`q7\nx2 and ${REDACTED}`);
    expect(createRedactor(['q7x2-k9m'])('q7x2\n  -k9m and q7x2-k9m')).toBe(`${REDACTED} and ${REDACTED}`);
  });

  it('regression: a secret split over two lines with a percent-encoded character in it is removed', () => {
    const scrub = createRedactor(['zz-0123456789abcdef-token']);
    expect(scrub('key zz-0123456\n789%61bcdef-token end')).toBe(`key ${REDACTED} end`);
  });
});

describe('regression: the URL and query patterns are bounded (a-a-a-… was quadratic: 250K characters took 33 s)', () => {
  it('still removes the password of a URL with a long scheme, a token used as the user, and a query key', () => {
    const scrub = createRedactor([]);
    const R = REDACTED;
    expect(scrub('git+ssh+custom.scheme-x://deploy:hunter2hunter2@example.com/x')).toBe(
      `git+ssh+custom.scheme-x://deploy:${R}@example.com/x`,
    );
    expect(scrub(`https://${'t0k3n'.repeat(6)}@github.com/acme/w.git`)).toBe(
      `https://${R}@github.com/acme/w.git`,
    );
    expect(scrub('https://x.test/?page=2&client_secret_value=abc123&q=1')).toBe(
      `https://x.test/?page=2&client_secret_value=${R}&q=1`,
    );
  });

  it('leaves a long run of short words as it is, in either reading', () => {
    const text = 'a-'.repeat(5_000);
    const scrub = createRedactor(['zz-0123456789abcdef-token']);
    expect(scrub(text)).toBe(text);
    expect(scrub(text, { markdown: true })).toBe(text);
  });
});
