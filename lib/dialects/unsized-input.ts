import { badRequest } from "../errors/gateway-error";
import type { CallerDialect } from "./dialect";
import { callerFormats } from "./wire-format";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Anthropic tools the upstream runs itself and bills per use (searches, fetched pages,
 * container time) on top of tokens: the gateway's prices cannot cover them.
 */

export interface InputScan {
  /** Input the upstream fetches itself (images, documents or files by URL or id). */
  unsized: boolean;
  /** Any image part, inline or by reference: a model without vision cannot take it. */
  images: boolean;
}

const imagePartTypes = new Set(["image_url", "input_image", "image"]);

/**
 * Refuses what no hold can price (server-side tools, MCP servers) with a 400, and reports
 * whether the body references input the upstream fetches itself, whose size the byte
 * estimate cannot see, and whether it holds images. The walk is iterative: the body was
 * already checked for nesting depth, but a stack costs nothing here.
 */
export function scanInput(dialect: CallerDialect, body: Record<string, unknown>): InputScan {
  refuseServerTools(dialect, body);
  const stack: unknown[] = [body.messages, body.system, body.input];
  const scan: InputScan = { unsized: false, images: false };
  for (let value = stack.pop(); value !== undefined || stack.length > 0; value = stack.pop()) {
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    if (!isRecord(value)) continue;
    if (referencesRemoteInput(value)) scan.unsized = true;
    if (typeof value.type === "string" && imagePartTypes.has(value.type)) scan.images = true;
    for (const child of Object.values(value))
      if (typeof child === "object" && child !== null) stack.push(child);
  }
  return scan;
}

function referencesRemoteInput(part: Record<string, unknown>): boolean {
  // OpenAI: {"type":"image_url","image_url":{"url":"https://..."}} (data: URLs are in the bytes).
  if (part.type === "image_url") {
    const image = part.image_url;
    const url = isRecord(image) ? image.url : image;
    return typeof url !== "string" || !url.startsWith("data:");
  }
  // Responses API: input_image by URL or file id, input_file without inline data.
  if (part.type === "input_image")
    return typeof part.image_url !== "string" || !part.image_url.startsWith("data:");
  if (part.type === "input_file") return typeof part.file_data !== "string";
  // OpenAI: {"type":"file","file":{"file_id"|"file_url"|"file_data"}}.
  if (part.type === "file" && isRecord(part.file)) return typeof part.file.file_data !== "string";
  // Anthropic: image/document sources by URL or Files API id.
  if ((part.type === "image" || part.type === "document") && isRecord(part.source)) {
    return part.source.type === "url" || part.source.type === "file";
  }
  return false;
}

function refuseServerTools(dialect: CallerDialect, body: Record<string, unknown>): void {
  if (body.mcp_servers !== undefined)
    throw badRequest("mcp_servers is not supported: the upstream bills its tool calls beyond token prices", {
      param: "mcp_servers",
    });
  const format = callerFormats[dialect];
  if (format.hasWebSearchOptions && body.web_search_options !== undefined)
    throw badRequest("web_search_options is not supported: the upstream bills searches beyond token prices", {
      param: "web_search_options",
    });
  if (!Array.isArray(body.tools)) return;
  for (const tool of body.tools) {
    if (!isRecord(tool) || typeof tool.type !== "string") continue;
    if (format.isServerTool(tool.type))
      throw badRequest(
        `tool type ${tool.type} is not supported: the upstream runs it and bills it beyond token prices`,
        { param: "tools" },
      );
  }
}
