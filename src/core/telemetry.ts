/**
 * The tracer and meters every layer reports to, without importing OpenTelemetry: when telemetry is
 * off (the default) this module's no-op stands in, so call sites need no `if` and `--help` loads no
 * `@opentelemetry` module. `run/telemetry-setup.ts` installs the real one for the length of a run
 * (the SDK is loaded by dynamic import only then) and puts the no-op back after.
 *
 * Process-wide like OpenTelemetry's own global API: spans nest through async context, so a model
 * call made inside an issue's session is that session's child without the session being passed down.
 */

export type AttributeValue = string | number | boolean | readonly string[];
export type Attributes = Readonly<Record<string, AttributeValue | undefined>>;

export interface SpanHandle {
  /** Adds attributes; strings go through the run's redactor. */
  set(attributes: Attributes): void;
  /** Marks the span failed with a (redacted) reason. */
  fail(reason: string): void;
}

export interface SpanOptions {
  /** `client` for calls out of the process (model, GitHub, git remotes); `internal` otherwise. */
  kind?: 'client' | 'internal';
}

export interface Telemetry {
  readonly enabled: boolean;
  /** Runs `fn` inside a span that ends when `fn` settles (failed when it throws). */
  span<T>(
    name: string,
    attributes: Attributes,
    fn: (span: SpanHandle) => Promise<T>,
    options?: SpanOptions,
  ): Promise<T>;
  /** Adds to a counter (created on first use). */
  count(name: string, value: number, attributes?: Attributes): void;
  /** Records a histogram value (created on first use). */
  record(name: string, value: number, attributes?: Attributes): void;
  /** The active span's W3C `traceparent`, for a child process to join the trace; undefined when off. */
  traceparent(): string | undefined;
}

const noSpan: SpanHandle = { set: () => undefined, fail: () => undefined };

export const noTelemetry: Telemetry = {
  enabled: false,
  span: (_name, _attributes, fn) => fn(noSpan),
  count: () => undefined,
  record: () => undefined,
  traceparent: () => undefined,
};

let current: Telemetry = noTelemetry;

/** The telemetry of the run in progress, or the no-op. */
export function telemetry(): Telemetry {
  return current;
}

/** Installs `next` until the returned function is called (which puts the previous one back). */
export function useTelemetry(next: Telemetry): () => void {
  const previous = current;
  current = next;
  return () => {
    current = previous;
  };
}
