import type { ErrorInfo, ErrorKind } from "../error-kind";
import { errorKindFromStatus, genericUpstreamMessage, unreadableError } from "../error-kind";
import { anthropicErrorSchema } from "./schemas";

/** @see https://docs.anthropic.com/en/api/errors */
const anthropicTypeByKind: Record<ErrorKind, string> = {
  invalid_request: "invalid_request_error",
  authentication: "authentication_error",
  permission: "permission_error",
  not_found: "not_found_error",
  request_too_large: "request_too_large",
  rate_limit: "rate_limit_error",
  billing: "billing_error",
  timeout: "timeout_error",
  overloaded: "overloaded_error",
  server: "api_error",
};

const kindByAnthropicType = new Map<string, ErrorKind>(
  Object.entries(anthropicTypeByKind).map(([kind, type]) => [type, kind as ErrorKind]),
);

export function parseAnthropicError(body: unknown, status: number): ErrorInfo {
  const parsed = anthropicErrorSchema.safeParse(body);
  if (!parsed.success) return unreadableError(status);
  const { error } = parsed.data;
  const type = error.type ?? undefined;
  return {
    // Anthropic's types are precise and closed, so they win over the status.
    kind: (type && kindByAnthropicType.get(type)) || errorKindFromStatus(status),
    message: error.message || genericUpstreamMessage(status),
    sourceCode: type,
  };
}

/** `{ type: "error", error: { type, message } }`; the SDK reads `error.type`. */
export function renderAnthropicError(info: ErrorInfo): {
  type: "error";
  error: { type: string; message: string };
} {
  return { type: "error", error: { type: anthropicTypeByKind[info.kind], message: info.message } };
}
