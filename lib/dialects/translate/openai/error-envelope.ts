import type { ErrorInfo, ErrorKind } from "../error-kind";
import { errorKindFromStatus, genericUpstreamMessage, unreadableError } from "../error-kind";
import { openaiErrorSchema } from "./schemas";

/**
 * OpenAI's `type` is loose in practice ("requests", "tokens" on 429s, "invalid_request_error"
 * on 401s), so the code is consulted first, then the type, then the status.
 * @see https://platform.openai.com/docs/guides/error-codes
 */
const kindByOpenaiCode: Record<string, ErrorKind> = {
  invalid_api_key: "authentication",
  authentication_error: "authentication",
  permission_error: "permission",
  model_not_found: "not_found",
  not_found_error: "not_found",
  rate_limit_exceeded: "rate_limit",
  rate_limit_error: "rate_limit",
  insufficient_quota: "billing",
  context_length_exceeded: "invalid_request",
  invalid_request_error: "invalid_request",
  server_error: "server",
  timeout: "timeout",
};

export function parseOpenaiError(body: unknown, status: number): ErrorInfo {
  const parsed = openaiErrorSchema.safeParse(body);
  if (!parsed.success) return unreadableError(status);
  const { error } = parsed.data;
  const code = error.code === null || error.code === undefined ? undefined : String(error.code);
  const type = error.type ?? undefined;
  const fromVendor = (code && kindByOpenaiCode[code]) || (type && kindByOpenaiCode[type]);
  // A known status beats a generic vendor type (e.g. 401 + invalid_request_error).
  const fromStatus = status > 0 ? errorKindFromStatus(status) : undefined;
  const kind =
    fromVendor && (fromVendor !== "invalid_request" || fromStatus === undefined)
      ? fromVendor
      : (fromStatus ?? "server");
  return { kind, message: error.message || genericUpstreamMessage(status), sourceCode: code ?? type };
}

const openaiTypeByKind: Record<ErrorKind, string> = {
  invalid_request: "invalid_request_error",
  authentication: "authentication_error",
  permission: "permission_error",
  not_found: "not_found_error",
  request_too_large: "invalid_request_error",
  rate_limit: "rate_limit_error",
  billing: "insufficient_quota",
  timeout: "timeout_error",
  overloaded: "server_error",
  server: "server_error",
};

/** `{ error: { message, type, param, code } }`, the envelope openai-node's APIError reads. */
export function renderOpenaiError(info: ErrorInfo): { error: Record<string, unknown> } {
  return {
    error: {
      message: info.message,
      type: openaiTypeByKind[info.kind],
      param: null,
      code: info.sourceCode ?? null,
    },
  };
}
