import {
  type Context,
  type Counter,
  type Histogram,
  type Meter,
  type Attributes as OtelAttributes,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Redactor } from '../core/redact.js';
import type { Attributes, SpanHandle, Telemetry } from '../core/telemetry.js';
import { GEN_AI, ISSUELOOP } from '../core/telemetry-names.js';

// Loaded only by run/telemetry-setup.ts's dynamic import: nothing here runs when telemetry is off.

export interface OtelParts {
  tracer: Tracer;
  meter: Meter | undefined;
  contextManager: AsyncLocalStorageContextManager;
  propagator: W3CTraceContextPropagator;
  redact: Redactor;
}

/** Attribute values with every string through the run's redactor; unset ones left out. */
function clean(attributes: Attributes, redact: Redactor): OtelAttributes {
  const out: OtelAttributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    if (typeof value === 'string') out[key] = redact(value);
    else if (Array.isArray(value)) out[key] = value.map((v: string) => redact(v));
    else out[key] = value as number | boolean;
  }
  return out;
}

/** What a thrown error says on a span: its code or class, never its message (it may quote text). */
function errorName(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[a-z_]+$/i.test(code)) return code;
  return err instanceof Error ? err.name : 'error';
}

function handleOf(span: Span, redact: Redactor): SpanHandle {
  return {
    set: (attributes) => span.setAttributes(clean(attributes, redact)),
    fail: (reason) => span.setStatus({ code: SpanStatusCode.ERROR, message: redact(reason) }),
  };
}

const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];

const UNITS: Readonly<Record<string, string>> = {
  [GEN_AI.tokenUsage]: '{token}',
  [GEN_AI.operationDuration]: 's',
  [ISSUELOOP.tokens]: '{token}',
  [ISSUELOOP.dollars]: 'USD',
  [ISSUELOOP.sessions]: '{session}',
  [ISSUELOOP.sessionCost]: 'USD',
  [ISSUELOOP.sessionDuration]: 's',
};

/** The Telemetry every layer calls, over the SDK's tracer and meter. */
export function otelTelemetry(parts: OtelParts): Telemetry {
  const { tracer, meter, contextManager, propagator, redact } = parts;
  const counters = new Map<string, Counter>();
  const histograms = new Map<string, Histogram>();
  const counter = (name: string, m: Meter) => {
    let made = counters.get(name);
    if (!made) {
      made = m.createCounter(name, { unit: UNITS[name] ?? '1' });
      counters.set(name, made);
    }
    return made;
  };
  const histogram = (name: string, m: Meter) => {
    let made = histograms.get(name);
    if (!made) {
      const advice = name === GEN_AI.tokenUsage ? { explicitBucketBoundaries: TOKEN_BUCKETS } : undefined;
      made = m.createHistogram(name, { unit: UNITS[name] ?? '1', ...(advice ? { advice } : {}) });
      histograms.set(name, made);
    }
    return made;
  };
  return {
    enabled: true,
    span(name, attributes, fn, options) {
      const parent: Context = contextManager.active();
      const span = tracer.startSpan(
        redact(name),
        {
          kind: options?.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
          attributes: clean(attributes, redact),
        },
        parent,
      );
      return contextManager.with(trace.setSpan(parent, span), async () => {
        try {
          return await fn(handleOf(span, redact));
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: errorName(err) });
          throw err;
        } finally {
          span.end();
        }
      });
    },
    count(name, value, attributes = {}) {
      if (meter) counter(name, meter).add(value, clean(attributes, redact));
    },
    record(name, value, attributes = {}) {
      if (meter) histogram(name, meter).record(value, clean(attributes, redact));
    },
    traceparent() {
      const carrier: Record<string, string> = {};
      propagator.inject(contextManager.active(), carrier, {
        set: (target, key, value) => {
          (target as Record<string, string>)[key] = value;
        },
      });
      return carrier.traceparent;
    },
  };
}
