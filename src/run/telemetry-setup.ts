import type { Config } from '../config/schema.js';
import type { Log } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import { noTelemetry, type Telemetry, useTelemetry } from '../core/telemetry.js';
import { ISSUELOOP } from '../core/telemetry-names.js';
import { type Env, shownUrl } from './secrets.js';
import { type TelemetrySettings, telemetrySettings } from './telemetry-settings.js';
import { readVersion } from './version.js';

export interface StartedTelemetry {
  telemetry: Telemetry;
  settings: TelemetrySettings | undefined;
  /** Ends the spans' batch and the metrics' last export; never throws (a collector away is logged). */
  shutdown(): Promise<void>;
}

const OFF: StartedTelemetry = {
  telemetry: noTelemetry,
  settings: undefined,
  shutdown: async () => undefined,
};

/** How long the last export may take at the end of a run before it is given up. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * The run's telemetry: the no-op when no OTLP endpoint is configured (and then no `@opentelemetry`
 * module is loaded), otherwise the SDK's tracer and meter exporting OTLP/HTTP to it. Headers and
 * resource attributes are parsed by the SDK's own parser; nothing here reads `process.env`.
 */
export async function startTelemetry(input: {
  env: Env;
  config: Pick<Config, 'telemetry'>;
  redact: Redactor;
  log: Log;
  version: string;
}): Promise<StartedTelemetry> {
  const settings = telemetrySettings(input.env, input.config);
  if (!settings) return OFF;
  const [api, core, resources, sdkTrace, sdkMetrics, hooks, exporters, { otelTelemetry }] = await Promise.all(
    [
      import('@opentelemetry/api'),
      import('@opentelemetry/core'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/sdk-metrics'),
      import('@opentelemetry/context-async-hooks'),
      loadExporters(settings),
      import('./otel-telemetry.js'),
    ],
  );
  // The SDK's own failures (a collector that refuses) go to the run's log, redacted, as warnings.
  api.diag.setLogger(
    {
      error: (message) => input.log.warn(`telemetry: ${input.redact(message)}`),
      warn: (message) => input.log.warn(`telemetry: ${input.redact(message)}`),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: api.DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const resource = resources.resourceFromAttributes({
    ...core.parseKeyPairsIntoRecord(settings.resourceAttributes),
    'service.name': settings.serviceName,
    'service.version': input.version,
  });
  const traceExporter = new exporters.Traces({
    url: settings.tracesUrl,
    headers: core.parseKeyPairsIntoRecord(settings.traceHeaders),
  });
  const tracerProvider = new sdkTrace.TracerProvider({
    resource,
    spanProcessors: [new sdkTrace.BatchSpanProcessor({ exporter: traceExporter })],
  });
  const meterProvider = settings.metricsUrl
    ? new sdkMetrics.MeterProvider({
        resource,
        readers: [
          new sdkMetrics.PeriodicExportingMetricReader({
            exporter: new exporters.Metrics({
              url: settings.metricsUrl,
              headers: core.parseKeyPairsIntoRecord(settings.metricHeaders),
            }),
          }),
        ],
      })
    : undefined;
  const contextManager = new hooks.AsyncLocalStorageContextManager().enable();
  const telemetry = otelTelemetry({
    tracer: tracerProvider.getTracer('issueloop', input.version),
    meter: meterProvider?.getMeter('issueloop', input.version),
    contextManager,
    propagator: new core.W3CTraceContextPropagator(),
    redact: input.redact,
  });
  return {
    telemetry,
    settings,
    async shutdown() {
      const ended = Promise.allSettled([tracerProvider.shutdown(), meterProvider?.shutdown()]);
      const results = await core.callWithTimeout(ended, SHUTDOWN_TIMEOUT_MS).catch(() => undefined);
      contextManager.disable();
      api.diag.disable();
      const failed = results?.find((r) => r.status === 'rejected');
      if (!results || failed) {
        input.log.warn(`telemetry: the last export to ${shownUrl(settings.tracesUrl)} did not complete`);
      }
    },
  };
}

/** Each signal's OTLP/HTTP exporter in the protocol set for it (a collector may take JSON for one only). */
async function loadExporters(settings: TelemetrySettings) {
  const [Traces, Metrics] = await Promise.all([
    settings.protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http').then((m) => m.OTLPTraceExporter)
      : import('@opentelemetry/exporter-trace-otlp-proto').then((m) => m.OTLPTraceExporter),
    settings.metricsProtocol === 'http/json'
      ? import('@opentelemetry/exporter-metrics-otlp-http').then((m) => m.OTLPMetricExporter)
      : import('@opentelemetry/exporter-metrics-otlp-proto').then((m) => m.OTLPMetricExporter),
  ]);
  return { Traces, Metrics };
}

/**
 * `rounds` inside the run's span, with the run's telemetry installed for every layer (and the
 * no-op put back, the last export made, when it ends).
 */
export async function withRunTelemetry<T extends { stop: string; costUsd: number }>(
  input: {
    env: Env;
    config: Pick<Config, 'telemetry'>;
    redact: Redactor;
    log: Log;
    runId: string;
    repo: string;
  },
  rounds: () => Promise<T>,
): Promise<T> {
  const started = await startTelemetry({ ...input, version: readVersion() });
  const restore = useTelemetry(started.telemetry);
  try {
    const attributes = { [ISSUELOOP.runId]: input.runId, [ISSUELOOP.repo]: input.repo };
    return await started.telemetry.span('issueloop.run', attributes, async (span) => {
      const summary = await rounds();
      span.set({ [ISSUELOOP.stop]: summary.stop, [ISSUELOOP.costUsd]: summary.costUsd });
      return summary;
    });
  } finally {
    restore();
    await started.shutdown();
  }
}
