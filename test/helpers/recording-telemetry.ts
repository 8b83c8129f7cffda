import type { Attributes, Telemetry } from '../../src/core/telemetry.js';

export interface RecordedSpan {
  name: string;
  attributes: Record<string, unknown>;
  kind: string | undefined;
}

/**
 * A Telemetry that keeps each span (name, attributes, kind) and each metric value in memory. Install
 * it with `useTelemetry(rec.telemetry)` and put the previous one back after the test.
 */
export function recordingTelemetry() {
  const spans: RecordedSpan[] = [];
  const metrics: { name: string; value: number; attributes: Attributes }[] = [];
  const telemetry: Telemetry = {
    enabled: true,
    async span(name, attributes, fn, options) {
      const span: RecordedSpan = { name, attributes: { ...attributes }, kind: options?.kind };
      spans.push(span);
      return fn({ set: (more) => Object.assign(span.attributes, more), fail: () => undefined });
    },
    count: (name, value, attributes = {}) => metrics.push({ name, value, attributes }),
    record: (name, value, attributes = {}) => metrics.push({ name, value, attributes }),
    traceparent: () => undefined,
  };
  return { telemetry, spans, metrics };
}
