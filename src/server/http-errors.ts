import { ConfigError, InputError, SandboxError } from "../errors.ts";

/** An answer other than success, decided by the service (auth, limits, unknown ids). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: { error: { status: number; code: string; message: string; field?: string } };
}

/** Fastify's own client errors, by code, with the words a client should read instead. */
const FASTIFY_CLIENT_ERRORS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "request body is larger than this service accepts (--body-limit-mb)",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "send the request body as application/json",
  FST_ERR_CTP_EMPTY_JSON_BODY: "request body: empty; send a JSON object",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "request body: its length differs from the Content-Length header",
};

/**
 * What a client is told about an error. Bad input (an InputError from validation, a ConfigError from
 * a grader's or estimator's options) is a 400 with the same located message the CLI prints;
 * infrastructure that is down is a 503; anything else is a 500 that says only that it was logged —
 * never a stack trace. `internal` is set when the error should be logged by the service.
 */
export function errorAnswer(error: unknown): ErrorAnswer & { internal: boolean } {
  if (error instanceof HttpError)
    return { ...answer(error.status, error.code, error.message), headers: error.headers, internal: false };
  if (error instanceof InputError) {
    const a = answer(400, "bad-request", error.message);
    if (error.location.field) a.body.error.field = error.location.field;
    return { ...a, internal: false };
  }
  if (error instanceof ConfigError) return { ...answer(400, "bad-request", error.message), internal: false };
  const code = (error as { code?: unknown }).code;
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof code === "string" && code.startsWith("FST_") && typeof status === "number" && status < 500)
    return {
      ...answer(
        status,
        status === 413 ? "too-large" : "bad-request",
        FASTIFY_CLIENT_ERRORS[code] ?? (error as Error).message,
      ),
      internal: false,
    };
  if (error instanceof SandboxError && error.retryable)
    return {
      ...answer(503, "unavailable", `the service cannot reach what it needs: ${error.message}`),
      headers: { "retry-after": "5" },
      internal: true,
    };
  return { ...answer(500, "internal", "internal error; the service logged it"), internal: true };
}

function answer(status: number, code: string, message: string): ErrorAnswer {
  return { status, headers: {}, body: { error: { status, code, message } } };
}
