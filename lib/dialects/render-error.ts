import type { AnthropicErrorBody, OpenaiErrorBody } from "@pod-gateway/contracts/gateway-errors";
import { anthropicErrorType, type GatewayError } from "../errors/gateway-error";
import type { Dialect } from "./dialect";

/**
 * The error body in the caller's dialect. OpenAI SDKs read `error.message/type/code`;
 * Anthropic SDKs read `{type:"error", error:{type, message}}` with Anthropic's own type
 * names. Both pick their typed error class from the status. The gateway's kind is
 * `error.code` in both, and the request id is in the body as well as in a header, so a
 * logged body alone is enough to ask for help.
 */
export function renderErrorBody(
  dialect: Dialect,
  error: GatewayError,
  requestId?: string,
): OpenaiErrorBody | AnthropicErrorBody {
  const id = requestId ? { request_id: requestId } : {};
  if (dialect === "anthropic") {
    return {
      type: "error",
      error: {
        type: anthropicErrorType[error.type],
        code: error.type,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
      },
      ...id,
    };
  }
  return {
    error: {
      message: error.message,
      type: error.type,
      code: error.type,
      param: error.param ?? null,
      ...(error.details ? { details: error.details } : {}),
    },
    ...id,
  };
}
