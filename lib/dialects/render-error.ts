import type { GatewayError } from "../errors/gateway-error";
import type { Dialect } from "./dialect";

/**
 * The error body in the caller's dialect. OpenAI SDKs read `error.message/type/code`;
 * Anthropic SDKs read `{type:"error", error:{type, message}}`. Both pick their typed
 * error class from the status, so the body only has to be well-formed.
 */
export function renderErrorBody(dialect: Dialect, error: GatewayError): Record<string, unknown> {
  if (dialect === "anthropic") {
    return {
      type: "error",
      error: {
        type: error.type,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
      },
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
  };
}
