/** What a route answers before the pipeline adds the headers every response carries. */
export interface Reply {
  status: number;
  /** Serialised as JSON; absent for empty bodies. */
  body?: unknown;
  headers?: Record<string, string>;
}

export const REST_DOCS = 'https://docs.github.com/rest';

/** GitHub's error body; recent API versions echo the status as a string. */
export function errorReply(status: number, message: string, extra: Record<string, unknown> = {}): Reply {
  return { status, body: { message, documentation_url: REST_DOCS, ...extra, status: String(status) } };
}

export const notFound = (): Reply => errorReply(404, 'Not Found');

export function validationFailed(errors: Array<Record<string, unknown>>): Reply {
  return errorReply(422, 'Validation Failed', { errors });
}

export function missingField(resource: string, field: string): Reply {
  return validationFailed([{ resource, code: 'missing_field', field }]);
}

export function ok(body: unknown, headers?: Record<string, string>): Reply {
  return headers ? { status: 200, body, headers } : { status: 200, body };
}

export function created(body: unknown): Reply {
  return { status: 201, body };
}

/** Narrows a parsed JSON body to an object, treating anything else as empty. */
export function objectBody(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

export function stringField(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}
