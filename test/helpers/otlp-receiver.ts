import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/**
 * A loopback OTLP/HTTP collector for tests: node:http on 127.0.0.1 that takes `/v1/traces` and
 * `/v1/metrics` in either encoding (`application/x-protobuf`, decoded by protobufjs from the OTLP
 * messages' schema below; `application/json`) and keeps what it got as plain spans and metric points.
 */

// The OTLP messages this receiver reads (opentelemetry-proto v1), fields it does not read left out:
// protobufjs skips unknown fields, so the wire format needs no more.
const OTLP_SCHEMA = `
syntax = "proto3";
package otlp;
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; }
message Scope { string name = 1; string version = 2; }
message Status { string message = 2; int32 code = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  repeated KeyValue attributes = 9; Status status = 15;
}
message ScopeSpans { Scope scope = 1; repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message NumberDataPoint { repeated KeyValue attributes = 7; oneof value { double as_double = 4; sfixed64 as_int = 6; } }
message HistogramDataPoint { repeated KeyValue attributes = 9; fixed64 count = 4; double sum = 5; }
message Sum { repeated NumberDataPoint data_points = 1; }
message Histogram { repeated HistogramDataPoint data_points = 1; }
message Metric { string name = 1; string unit = 3; oneof data { Sum sum = 7; Histogram histogram = 9; } }
message ScopeMetrics { Scope scope = 1; repeated Metric metrics = 2; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
`;

const root = protobuf.parse(OTLP_SCHEMA).root;
const TraceRequest = root.lookupType('otlp.ExportTraceServiceRequest');
const MetricsRequest = root.lookupType('otlp.ExportMetricsServiceRequest');

export type Value = string | number | boolean | Value[];

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, Value>;
  status: { code: number; message: string };
  resource: Record<string, Value>;
}

export interface ReceivedPoint {
  metric: string;
  unit: string;
  attributes: Record<string, Value>;
  /** A sum's value, or a histogram point's sum. */
  value: number;
  /** A histogram point's count. */
  count?: number;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  points: ReceivedPoint[];
  /** The content types of the requests, in order. */
  contentTypes: string[];
  /** Every request's headers, in order. */
  headers: Record<string, string | string[] | undefined>[];
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: decoded OTLP messages are walked generically
type Json = any;

const hex = (value: unknown): string =>
  typeof value === 'string' ? value : value ? Buffer.from(value as Uint8Array).toString('hex') : '';

function anyValue(any: Json): Value {
  if (!any) return '';
  if ('stringValue' in any) return any.stringValue;
  if ('boolValue' in any) return any.boolValue;
  if ('intValue' in any) return Number(any.intValue);
  if ('doubleValue' in any) return Number(any.doubleValue);
  if ('arrayValue' in any) return (any.arrayValue.values ?? []).map(anyValue);
  return '';
}

function attributesOf(list: Json[] | undefined): Record<string, Value> {
  return Object.fromEntries((list ?? []).map((kv: Json) => [kv.key, anyValue(kv.value)]));
}

function spansOf(request: Json): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs: Json) =>
    (rs.scopeSpans ?? []).flatMap((ss: Json) =>
      (ss.spans ?? []).map((span: Json) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name,
        kind: Number(span.kind ?? 0),
        attributes: attributesOf(span.attributes),
        status: { code: Number(span.status?.code ?? 0), message: span.status?.message ?? '' },
        resource: attributesOf(rs.resource?.attributes),
      })),
    ),
  );
}

function pointsOf(request: Json): ReceivedPoint[] {
  return (request.resourceMetrics ?? []).flatMap((rm: Json) =>
    (rm.scopeMetrics ?? []).flatMap((sm: Json) =>
      (sm.metrics ?? []).flatMap((metric: Json) => {
        const base = { metric: metric.name, unit: metric.unit ?? '' };
        if (metric.sum)
          return (metric.sum.dataPoints ?? []).map((p: Json) => ({
            ...base,
            attributes: attributesOf(p.attributes),
            value: Number(p.asDouble ?? p.asInt ?? 0),
          }));
        return (metric.histogram?.dataPoints ?? []).map((p: Json) => ({
          ...base,
          attributes: attributesOf(p.attributes),
          value: Number(p.sum ?? 0),
          count: Number(p.count ?? 0),
        }));
      }),
    ),
  );
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function decode(body: Buffer, contentType: string, type: protobuf.Type): Json {
  if (contentType.includes('json')) return JSON.parse(body.toString('utf8'));
  return type.toObject(type.decode(body), { longs: Number, defaults: false, oneofs: false });
}

/** Listens on 127.0.0.1 (a free port) until `close`. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: Omit<OtlpReceiver, 'url' | 'close'> = {
    spans: [],
    points: [],
    contentTypes: [],
    headers: [],
  };
  const server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      const contentType = String(req.headers['content-type'] ?? '');
      received.contentTypes.push(contentType);
      received.headers.push(req.headers);
      if (req.url === '/v1/traces') received.spans.push(...spansOf(decode(body, contentType, TraceRequest)));
      else if (req.url === '/v1/metrics')
        received.points.push(...pointsOf(decode(body, contentType, MetricsRequest)));
      res.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : contentType });
      res.end(contentType.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    ...received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
