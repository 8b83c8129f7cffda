import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { ConfigError } from '../../src/core/errors.js';
import { createRedactor } from '../../src/core/redact.js';
import { noTelemetry, telemetry } from '../../src/core/telemetry.js';
import { telemetrySettings } from '../../src/run/telemetry-settings.js';
import { startTelemetry, withRunTelemetry } from '../../src/run/telemetry-setup.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const config = { telemetry: {} };
const SECRET = 'otlp-secret-4f9a2c7e1b';
let receiver: OtlpReceiver | undefined;

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function exportTwoSpans(env: Record<string, string>) {
  const started = await startTelemetry({
    env,
    config,
    redact: createRedactor([SECRET]),
    log: createMemoryLog(),
    version: '1.2.3',
  });
  await started.telemetry.span('outer', { 'issueloop.issue.number': 7 }, (outer) =>
    started.telemetry.span('inner', { note: `token ${SECRET}` }, async () => {
      outer.set({ 'issueloop.outcome': 'resolved' });
      started.telemetry.count('issueloop.sessions', 1, { 'issueloop.outcome': 'resolved' });
    }),
  );
  await started.shutdown();
}

describe('telemetry settings from the standard OTEL_* variables', () => {
  it('is off without an endpoint, and with OTEL_SDK_DISABLED=true', () => {
    expect(telemetrySettings({}, config)).toBeUndefined();
    expect(
      telemetrySettings(
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' },
        config,
      ),
    ).toBeUndefined();
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, config)).toMatchObject(
      {
        tracesUrl: 'http://127.0.0.1:4318/v1/traces',
        metricsUrl: 'http://127.0.0.1:4318/v1/metrics',
        protocol: 'http/protobuf',
        metricsProtocol: 'http/protobuf',
        serviceName: 'issueloop',
      },
    );
  });

  it('takes the config endpoint when no variable names one, and a traces endpoint as written', () => {
    const fromConfig = telemetrySettings({}, { telemetry: { otlp_endpoint: 'http://127.0.0.1:9/' } });
    expect(fromConfig?.tracesUrl).toBe('http://127.0.0.1:9/v1/traces');
    const traces = telemetrySettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/t' }, config);
    expect(traces).toMatchObject({ tracesUrl: 'http://127.0.0.1:9/t', metricsUrl: undefined });
  });

  it('telemetry.otlp_endpoint in the config must be an http(s) URL', () => {
    expect(ConfigSchema.parse({ telemetry: { otlp_endpoint: 'http://127.0.0.1:4318' } }).telemetry).toEqual({
      otlp_endpoint: 'http://127.0.0.1:4318',
    });
    const bad = ConfigSchema.safeParse({ telemetry: { otlp_endpoint: 'collector:4318' } });
    expect(bad.error?.issues[0]).toMatchObject({
      path: ['telemetry', 'otlp_endpoint'],
      message: 'expected an http(s) URL',
    });
  });

  it('refuses gRPC and a non-URL with a ConfigError naming the variable', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(() => telemetrySettings({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, config)).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL.*grpc is not supported: use http\/protobuf/s,
    );
    expect(() => telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, config)).toThrow(
      ConfigError,
    );
  });
});

describe('startTelemetry', () => {
  it('off: the no-op, and no export', async () => {
    const started = await startTelemetry({
      env: {},
      config,
      redact: createRedactor([]),
      log: createMemoryLog(),
      version: '0',
    });
    expect(started.telemetry).toBe(noTelemetry);
    expect(started.telemetry.traceparent()).toBeUndefined();
  });

  for (const protocol of ['http/protobuf', 'http/json'] as const) {
    it(`exports nested spans and metrics over ${protocol}, attributes redacted, headers sent`, async () => {
      const otlp = await startOtlpReceiver();
      receiver = otlp;
      await exportTwoSpans({
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${SECRET}`,
        OTEL_SERVICE_NAME: 'fleet',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
      });
      expect(otlp.contentTypes.every((t) => t.includes(protocol === 'http/json' ? 'json' : 'protobuf'))).toBe(
        true,
      );
      const outer = otlp.spans.find((s) => s.name === 'outer');
      const inner = otlp.spans.find((s) => s.name === 'inner');
      expect(outer?.attributes).toEqual({ 'issueloop.issue.number': 7, 'issueloop.outcome': 'resolved' });
      expect(inner?.parentSpanId).toBe(outer?.spanId);
      expect(inner?.traceId).toBe(outer?.traceId);
      expect(inner?.attributes.note).toBe('token [REDACTED]');
      expect(outer?.resource).toMatchObject({
        'service.name': 'fleet',
        'service.version': '1.2.3',
        'deployment.environment': 'test',
      });
      expect(otlp.headers[0]?.['x-api-key']).toBe(SECRET);
      expect(otlp.points).toContainEqual(
        expect.objectContaining({
          metric: 'issueloop.sessions',
          value: 1,
          attributes: { 'issueloop.outcome': 'resolved' },
        }),
      );
    });
  }

  it('regression: OTEL_EXPORTER_OTLP_METRICS_PROTOCOL is honoured (metrics went in the traces’ protocol)', async () => {
    const otlp = await startOtlpReceiver();
    receiver = otlp;
    await exportTwoSpans({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
    });
    expect(otlp.spans.map((s) => s.name).sort()).toEqual(['inner', 'outer']);
    expect(otlp.points).toContainEqual(expect.objectContaining({ metric: 'issueloop.sessions', value: 1 }));
    expect(otlp.contentTypes.some((t) => t.includes('protobuf'))).toBe(true);
    expect(otlp.contentTypes.some((t) => t.includes('json'))).toBe(true);
  });

  it('off (OTEL_SDK_DISABLED=true beside an endpoint): the rounds run, nothing is exported', async () => {
    const otlp = await startOtlpReceiver();
    receiver = otlp;
    let ran = false;
    await withRunTelemetry(
      {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SDK_DISABLED: 'true' },
        config,
        redact: createRedactor([]),
        log: createMemoryLog(),
        runId: 'run-off',
        repo: 'octo-org/widgets',
      },
      async () => {
        await telemetry().span('issueloop.round', {}, async () => {
          ran = true;
        });
        return { stop: 'empty_backlog', costUsd: 0 };
      },
    );
    expect(ran).toBe(true);
    expect(otlp.contentTypes).toEqual([]);
  });

  it('withRunTelemetry installs the run telemetry for the rounds and the no-op after', async () => {
    const otlp = await startOtlpReceiver();
    receiver = otlp;
    let during: boolean | undefined;
    let traceparent: string | undefined;
    const summary = await withRunTelemetry(
      {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
        config,
        redact: createRedactor([]),
        log: createMemoryLog(),
        runId: 'run-1',
        repo: 'octo-org/widgets',
      },
      async () => {
        during = telemetry().enabled;
        traceparent = telemetry().traceparent();
        return { stop: 'empty', costUsd: 0.25 };
      },
    );
    expect(summary.stop).toBe('empty');
    expect(during).toBe(true);
    expect(telemetry()).toBe(noTelemetry);
    const run = otlp.spans.find((s) => s.name === 'issueloop.run');
    expect(run?.attributes).toMatchObject({ 'issueloop.run.id': 'run-1', 'issueloop.stop': 'empty' });
    expect(traceparent).toBe(`00-${run?.traceId}-${run?.spanId}-01`);
  });
});
