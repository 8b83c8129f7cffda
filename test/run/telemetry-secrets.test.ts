import { afterEach, describe, expect, it } from 'vitest';
import { scrubEnv, secretValues } from '../../src/agent/tools/scrub-env.js';
import { createRedactor } from '../../src/core/redact.js';
import { type Telemetry, useTelemetry } from '../../src/core/telemetry.js';
import { claudeTelemetryEnv } from '../../src/engines/claude-code/claude-code-engine.js';
import { secretsFromEnv, shownUrl } from '../../src/run/secrets.js';
import { telemetrySettings } from '../../src/run/telemetry-settings.js';

// The OTLP headers carry a collector's credentials: secrets like tokens. Claude Code joins the trace.

const HEADERS = 'x-honeycomb-team=hc-key-7d1f2a9b,authorization=Bearer%20otlp-token-3c5e8a1f';

let restore: (() => void) | undefined;
afterEach(() => restore?.());

describe('OTLP headers are secrets', () => {
  it('are scrubbed from the agent environment, while the endpoint and service name stay', () => {
    const env = {
      OTEL_EXPORTER_OTLP_HEADERS: HEADERS,
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'api-key=trace-key-0a9b8c7d',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_SERVICE_NAME: 'issueloop',
    };
    expect(scrubEnv(env)).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_SERVICE_NAME: 'issueloop',
      GIT_TERMINAL_PROMPT: '0',
    });
    expect(secretValues(env)).toEqual([HEADERS, 'api-key=trace-key-0a9b8c7d']);
  });

  it('are redacted everywhere: the whole variable and each value, as written and decoded, bearer scheme or not', () => {
    const redact = createRedactor(secretsFromEnv({ OTEL_EXPORTER_OTLP_HEADERS: HEADERS }));
    const text = redact(
      `sent ${HEADERS}; key hc-key-7d1f2a9b; auth Bearer otlp-token-3c5e8a1f; raw Bearer%20otlp-token-3c5e8a1f`,
    );
    expect(text).toContain('sent ');
    for (const secret of ['hc-key-7d1f2a9b', 'otlp-token-3c5e8a1f']) expect(text).not.toContain(secret);
  });
});

describe('Claude Code joins the trace', () => {
  it('off: nothing is added to its environment', () => {
    expect(claudeTelemetryEnv({ telemetry: { otlp_endpoint: 'http://127.0.0.1:4318' } })).toEqual({});
  });

  it('on: its telemetry switch, the session span as TRACEPARENT, the config endpoint; never the headers', () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const on: Telemetry = {
      enabled: true,
      span: (_n, _a, fn) => fn({ set: () => undefined, fail: () => undefined }),
      count: () => undefined,
      record: () => undefined,
      traceparent: () => traceparent,
    };
    restore = useTelemetry(on);
    const env = claudeTelemetryEnv({ telemetry: { otlp_endpoint: 'http://collector.example.test:4318' } });
    expect(env).toEqual({
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.example.test:4318',
      TRACEPARENT: traceparent,
    });
    expect(Object.keys(env).some((name) => name.includes('HEADERS'))).toBe(false);
  });
});

describe('OTLP endpoint passwords are secrets', () => {
  const BASIC = 'https://otel:pw-5f3e9a1c@127.0.0.1:4318';
  const QUERY = 'http://127.0.0.1:4318/v1/traces?token=tk-8b2d4e6f&tenant=acme';

  it('regression (OTLP endpoint passwords are not secrets): a password or token in an endpoint is redacted, the collector still named', () => {
    const redact = createRedactor(
      secretsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: BASIC, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: QUERY }),
    );
    const text = redact('export to 127.0.0.1:4318 failed: pw-5f3e9a1c and tk-8b2d4e6f');
    expect(text).toContain('export to 127.0.0.1:4318 failed');
    for (const secret of ['pw-5f3e9a1c', 'tk-8b2d4e6f']) expect(text).not.toContain(secret);
    expect(shownUrl(BASIC)).toBe('https://otel:***@127.0.0.1:4318');
    expect(shownUrl(QUERY)).toBe('http://127.0.0.1:4318/v1/traces?token=***&tenant=acme');
  });

  it('regression (OTLP endpoint passwords are not secrets): a credentialed endpoint reaches neither the agent nor Claude Code', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: QUERY,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: BASIC,
      OTEL_SERVICE_NAME: 'x',
    };
    expect(scrubEnv(env)).toEqual({ OTEL_SERVICE_NAME: 'x', GIT_TERMINAL_PROMPT: '0' });
    const on: Telemetry = {
      enabled: true,
      span: (_n, _a, fn) => fn({ set: () => undefined, fail: () => undefined }),
      count: () => undefined,
      record: () => undefined,
      traceparent: () => undefined,
    };
    restore = useTelemetry(on);
    expect(claudeTelemetryEnv({ telemetry: { otlp_endpoint: BASIC } })).toEqual({
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
    });
    expect(claudeTelemetryEnv({ telemetry: { otlp_endpoint: 'http://127.0.0.1:4318' } })).toMatchObject({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    });
  });

  it('regression (OTLP endpoint passwords are not secrets): an endpoint that is not a URL is named without its password', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://u:pw-5f3e9a1c@[bad' };
    let message = '';
    try {
      telemetrySettings(env, { telemetry: {} } as never);
    } catch (err) {
      message = `${(err as Error).message} ${JSON.stringify(err)}`;
    }
    expect(message).toContain('u:***@[bad');
    expect(message).not.toContain('pw-5f3e9a1c');
  });
});
