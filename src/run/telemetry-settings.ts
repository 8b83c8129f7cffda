import type { Config } from '../config/schema.js';
import { ConfigError } from '../core/errors.js';
import { type Env, shownUrl } from './secrets.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** Where and how telemetry is exported, read from the standard `OTEL_*` variables and the config. */
export interface TelemetrySettings {
  tracesUrl: string;
  /** Undefined when only a traces endpoint is set: metrics then have nowhere to go. */
  metricsUrl: string | undefined;
  /** The traces' protocol (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`). */
  protocol: OtlpProtocol;
  /** The metrics' own (`OTEL_EXPORTER_OTLP_METRICS_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`). */
  metricsProtocol: OtlpProtocol;
  serviceName: string;
  /** `OTEL_RESOURCE_ATTRIBUTES`, as written (parsed by the SDK's own parser when loaded). */
  resourceAttributes: string | undefined;
  /** `OTEL_EXPORTER_OTLP_HEADERS` and the signal's own, as written: secrets. */
  traceHeaders: string | undefined;
  metricHeaders: string | undefined;
}

const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'];

function set(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function problem(name: string, message: string): ConfigError {
  return new ConfigError([
    { path: name, message, source: name.startsWith('OTEL_') ? 'environment' : 'config' },
  ]);
}

function checkedUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw problem(
      name,
      `${JSON.stringify(shownUrl(value))} is not a URL; set the collector's OTLP/HTTP address, e.g. http://127.0.0.1:4318`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw problem(name, `${url.protocol} is not supported: OTLP goes over http:// or https:// (OTLP/HTTP)`);
  }
  return value;
}

/** `base` with the signal's path, as the specification builds it (`…/v1/traces`). */
function signalUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path}`;
}

function protocolOf(env: Env, name: string): OtlpProtocol {
  const value = set(env[name]) ?? set(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? 'http/protobuf';
  if (!PROTOCOLS.includes(value)) {
    const which = set(env[name]) ? name : 'OTEL_EXPORTER_OTLP_PROTOCOL';
    throw problem(
      which,
      `${value} is not supported: use http/protobuf (the default) or http/json (issueloop exports OTLP over HTTP, not gRPC)`,
    );
  }
  return value as OtlpProtocol;
}

/**
 * The settings, or undefined when telemetry is off: no `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` nor `telemetry.otlp_endpoint`, or `OTEL_SDK_DISABLED=true`.
 * A bad URL or protocol is a ConfigError (exit 2).
 */
export function telemetrySettings(
  env: Env,
  config: Pick<Config, 'telemetry'>,
): TelemetrySettings | undefined {
  if (set(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return undefined;
  const baseName = set(env.OTEL_EXPORTER_OTLP_ENDPOINT)
    ? 'OTEL_EXPORTER_OTLP_ENDPOINT'
    : 'telemetry.otlp_endpoint';
  const base = set(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? config.telemetry.otlp_endpoint;
  const traces = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (!base && !traces) return undefined;
  const metrics = set(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  const tracesUrl = traces
    ? checkedUrl(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
    : signalUrl(checkedUrl(base as string, baseName), 'v1/traces');
  let metricsUrl: string | undefined;
  if (metrics) metricsUrl = checkedUrl(metrics, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT');
  else if (base) metricsUrl = signalUrl(checkedUrl(base, baseName), 'v1/metrics');
  const headers = set(env.OTEL_EXPORTER_OTLP_HEADERS);
  const joined = (own: string | undefined) => [headers, own].filter(Boolean).join(',') || undefined;
  return {
    tracesUrl,
    metricsUrl,
    protocol: protocolOf(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'),
    metricsProtocol: protocolOf(env, 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL'),
    serviceName: set(env.OTEL_SERVICE_NAME) ?? 'issueloop',
    resourceAttributes: set(env.OTEL_RESOURCE_ATTRIBUTES),
    traceHeaders: joined(set(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS)),
    metricHeaders: joined(set(env.OTEL_EXPORTER_OTLP_METRICS_HEADERS)),
  };
}
