import type { IncomingMessage, ServerResponse } from "node:http";

/** A 1×1 PNG: what every fake image is. */
export const fakePngBase64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/**
 * A request body as the fake records it: JSON as parsed; a multipart upload (an image edit)
 * as its text fields, with each file as `{ filename, type, bytes }` (under `image[]`, a list).
 */
export async function readFakeBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const contentType = request.headers["content-type"] ?? "";
  if (!contentType.startsWith("multipart/form-data"))
    return JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
  const form = await new Response(raw, { headers: { "content-type": contentType } }).formData();
  const body: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    const field =
      typeof value === "string" ? value : { filename: value.name, type: value.type, bytes: value.size };
    if (name.endsWith("[]")) body[name] = [...((body[name] as unknown[] | undefined) ?? []), field];
    else body[name] = field;
  }
  return body;
}

/**
 * OpenAI's images answer (generations and edits), in its wire format: `created` and `data`,
 * each image a `url` or `b64_json` as `response_format` asks (dall-e-3 adds `revised_prompt`);
 * gpt-image-1 answers base64 only, with the `size` and `quality` it chose (`auto` → low
 * 1024x1024) and its token usage. `[fake:images=<k>]` in the prompt delivers only k images.
 */
export function writeFakeImages(response: ServerResponse, body: Record<string, unknown>, name: string): void {
  const model = String(body.model ?? "dall-e-2");
  const prompt = String(body.prompt ?? "");
  const asked = Number(body.n ?? 1);
  const delivered = Number(/\[fake:images=(\d+)\]/.exec(prompt)?.[1] ?? asked);
  const gptImage = model.startsWith("gpt-image");
  const base64 = gptImage || body.response_format === "b64_json";
  const data = Array.from({ length: delivered }, (_, index) => ({
    ...(base64 ? { b64_json: fakePngBase64 } : { url: `https://fake-images.invalid/${name}/${index}.png` }),
    ...(model === "dall-e-3" ? { revised_prompt: `${prompt} (revised)` } : {}),
  }));
  const chosen = (value: unknown, auto: string) =>
    typeof value === "string" && value !== "auto" ? value : auto;
  response.writeHead(200, { "content-type": "application/json", "x-fake": name });
  response.end(
    JSON.stringify({
      created: Math.floor(Date.now() / 1000),
      data,
      ...(gptImage
        ? {
            background: "opaque",
            output_format: "png",
            size: chosen(body.size, "1024x1024"),
            quality: chosen(body.quality, "low"),
            usage: {
              input_tokens: 12,
              input_tokens_details: { text_tokens: 12, image_tokens: 0 },
              output_tokens: 272 * delivered,
              total_tokens: 12 + 272 * delivered,
            },
          }
        : {}),
    }),
  );
}
