import { parseAnthropicResponse } from "./anthropic/parse-response";
import { renderAnthropicResponse } from "./anthropic/render-response";
import type { Dialect } from "./ir";
import { parseOpenaiResponse } from "./openai/parse-response";
import { renderOpenaiResponse } from "./openai/render-response";

/**
 * Non-streaming upstream response of dialect `from` → response in dialect `to`, reporting
 * `model`. Same dialect keeps the body (and its unknown fields), only the model changes.
 * @throws GatewayError upstream_error when the upstream body is not a valid response.
 */
export function translateResponse(
  from: Dialect,
  to: Dialect,
  body: Record<string, unknown>,
  model: string,
): Record<string, unknown> {
  if (from === to) return { ...body, model };
  const response = from === "openai" ? parseOpenaiResponse(body) : parseAnthropicResponse(body);
  return to === "openai" ? renderOpenaiResponse(response, model) : renderAnthropicResponse(response, model);
}
