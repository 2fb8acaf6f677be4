import { countTokens } from "./tokenizer";

/**
 * Tokens an image costs, whatever its size: OpenAI's high-detail price of its largest common
 * tiling (85 + 6 × 170). An image's true cost depends on the model's vision encoder, which the
 * gateway cannot see; this is the allowance a claim is measured against.
 */
const imageTokenAllowance = 1_105;
/** Per message, the chat template's role and separator tokens (OpenAI's figure; open models' templates are similar). */
const perMessageTokens = 4;
/** The reply's priming tokens. */
const replyPrimingTokens = 3;

/** Keys whose values are wire vocabulary, not text the model reads. */
const structuralKeys = new Set([
  "role",
  "type",
  "id",
  "tool_call_id",
  "tool_use_id",
  "detail",
  "media_type",
  "cache_control",
  "model",
]);

function isImage(part: Record<string, unknown>): boolean {
  return part.type === "image_url" || part.type === "image" || part.type === "input_image";
}

/**
 * The prompt tokens of a request body as the gateway forwarded it (Chat Completions or
 * Messages): every text the model reads (messages, system, tool definitions and earlier tool
 * calls) through the o200k tokenizer, plus the template's per-message tokens and an allowance
 * per image.
 */
export async function countPromptTokens(forwardedBody: string): Promise<number> {
  let body: unknown;
  try {
    body = JSON.parse(forwardedBody);
  } catch {
    return countTokens(forwardedBody);
  }
  if (typeof body !== "object" || body === null) return countTokens(forwardedBody);
  const source = body as Record<string, unknown>;
  const texts: string[] = [];
  let images = 0;
  const messages = Array.isArray(source.messages) ? source.messages.length : 0;
  const stack: unknown[] = [source.messages, source.system, source.tools];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) stack.push(...value);
    else if (typeof value === "object" && value !== null) {
      const part = value as Record<string, unknown>;
      if (isImage(part)) {
        images += 1;
        continue;
      }
      for (const [key, child] of Object.entries(part)) {
        if (structuralKeys.has(key)) continue;
        // Tool schemas are read by the model as JSON text.
        if (key === "parameters" || key === "input_schema" || key === "input")
          texts.push(JSON.stringify(child));
        else stack.push(child);
      }
    }
  }
  const textTokens = await countTokens(texts.join("\n"));
  return textTokens + perMessageTokens * messages + replyPrimingTokens + imageTokenAllowance * images;
}
