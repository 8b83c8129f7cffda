/** The API's error types with the status each one comes with. */
export const ERROR_STATUS = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
} as const;

export type ApiErrorType = keyof typeof ERROR_STATUS;

/** A refusal on its way to the client; `status` may differ from the type's usual one when scripted. */
export interface ApiFailure {
  status: number;
  type: ApiErrorType;
  message: string;
  headers?: Record<string, string>;
}

export function failure(type: ApiErrorType, message: string, headers?: Record<string, string>): ApiFailure {
  return { status: ERROR_STATUS[type], type, message, ...(headers ? { headers } : {}) };
}

export function invalidRequest(message: string): ApiFailure {
  return failure('invalid_request_error', message);
}

/** The body the API sends with every error status (and, without `request_id`, in an SSE `error` event). */
export function errorBody(
  type: ApiErrorType,
  message: string,
  requestId?: string,
): { type: 'error'; error: { type: ApiErrorType; message: string }; request_id?: string } {
  return { type: 'error', error: { type, message }, ...(requestId ? { request_id: requestId } : {}) };
}
