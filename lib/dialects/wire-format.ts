import type { CallerDialect, Dialect } from "./dialect";
import { anthropicMessagesReply } from "./usage/anthropic-messages-reply";
import { openaiChatReply } from "./usage/openai-chat-reply";
import type { ReplyReader } from "./usage/reply-reader";

/** What one call asks of an upstream: a generation, Anthropic's token count, embeddings, or images. */
export type UpstreamOperation =
  | "generate"
  | "count_tokens"
  | "embeddings"
  | "image_generations"
  | "image_edits";

/** The body fields an output limit travels in, across the wire formats. */
export const outputLimitFields = ["max_tokens", "max_completion_tokens", "max_output_tokens"] as const;
export type OutputLimitField = (typeof outputLimitFields)[number];

/**
 * Everything the gateway knows about one wire format a caller speaks, in one record: proxy/,
 * usage/ and providers/ read these fields instead of asking which format they hold.
 */
export interface CallerFormat {
  /** The error envelope its SDK reads (the Responses API reads OpenAI's). */
  errorDialect: Dialect;
  /** The response header its SDK reads the request id from. */
  requestIdHeader: "request-id" | "x-request-id";
  /** The body field that holds the conversation, named in a 400 about it. */
  inputField: "messages" | "input";
  /** The output-limit fields a caller may send; when it sends several, the first present names the field. */
  outputLimitFields: readonly OutputLimitField[];
  /** The format's API refuses a request without an output limit (Anthropic's `max_tokens`). */
  requiresOutputLimit: boolean;
  /** Most choices (`n`) one request may ask for (OpenAI's own ceiling); 1 where the format has no `n`. */
  maxChoices: number;
  /**
   * A stream reports its usage only when asked (`stream_options.include_usage`): the gateway
   * asks on the caller's behalf and drops the chunk it asked for.
   */
  streamUsageOnRequest: boolean;
  /**
   * How its body is read: `chat`, a model, `messages` and `stream` (OpenAI chat and Anthropic
   * Messages, told apart by the fields above); `responses`, the Responses API's input items.
   */
  requestShape: "chat" | "responses";
  /**
   * A turn may continue a response the token stored (`previous_response_id`), and the answer
   * is stored in its turn (the Responses API's state).
   */
  storesResponses: boolean;
  /**
   * A stream translated from another format opens with the gateway's count of the prompt
   * (Anthropic's message_start carries input tokens, and LangChain's ChatAnthropic reads them
   * only there).
   */
  streamOpensWithPromptCount: boolean;
  /**
   * A caller that asked to stream reads the format's events even when a translated source
   * answered with a whole body (the Responses API's clients read events only).
   */
  streamsWholeTranslatedReply: boolean;
  /**
   * The format has OpenAI's `web_search_options`, which turns on searches the upstream bills
   * beyond token prices (refused).
   */
  hasWebSearchOptions: boolean;
  /**
   * A tool of this type runs on the upstream's side and is billed beyond token prices
   * (refused); false for every type where the codec drops such tools before forwarding.
   */
  isServerTool(type: string): boolean;
}

/** What the gateway knows about an upstream that speaks one format: where each operation goes, and its headers. */
export interface UpstreamFormat {
  /** The path of each operation it serves, after the upstream's base URL; absent, it does not serve it. */
  paths: Partial<Record<UpstreamOperation, string>>;
  /** Its auth header, plus the caller headers a same-format upstream should see. */
  headers(apiKey: string, forward: Readonly<Record<string, string>>): Record<string, string>;
  /**
   * The vendor whose own API the format is (a centralized upstream's name): that source is the
   * format's reference, and the fields below say where it differs from the compatible APIs.
   */
  vendor: string;
  /**
   * The output-limit field it honours: Anthropic's `max_tokens`; for OpenAI-format sources the
   * caller's own field, else `max_completion_tokens` at the vendor itself (OpenAI's reasoning
   * models refuse `max_tokens`) and `max_tokens` for the compatible APIs.
   */
  outputLimitField(callerField: OutputLimitField | undefined, atVendor: boolean): OutputLimitField;
  /**
   * The vendor answers in a JSON schema natively for every model that calls tools (OpenAI's
   * `response_format`), so the seeded catalog flags them; false leaves the flag to the catalog's
   * other sources, and translation carries structured output as a forced tool meanwhile.
   */
  nativeStructuredOutput: boolean;
  /** How its replies are read for billing: the usage they claim and the content they carry. */
  reply: ReplyReader;
}

/** Anthropic's server tools (web search and fetch, code execution, MCP, tool search). */
const anthropicServerTool = /^(web_search|web_fetch|code_execution|mcp_toolset|tool_search)/;

export const callerFormats: Readonly<Record<CallerDialect, CallerFormat>> = {
  openai: {
    errorDialect: "openai",
    requestIdHeader: "x-request-id",
    inputField: "messages",
    outputLimitFields: ["max_completion_tokens", "max_tokens"],
    requiresOutputLimit: false,
    maxChoices: 128,
    streamUsageOnRequest: true,
    requestShape: "chat",
    storesResponses: false,
    streamOpensWithPromptCount: false,
    streamsWholeTranslatedReply: false,
    hasWebSearchOptions: true,
    isServerTool: (type) => type !== "function" && type !== "custom",
  },
  anthropic: {
    errorDialect: "anthropic",
    requestIdHeader: "request-id",
    inputField: "messages",
    outputLimitFields: ["max_tokens"],
    requiresOutputLimit: true,
    maxChoices: 1,
    streamUsageOnRequest: false,
    requestShape: "chat",
    storesResponses: false,
    streamOpensWithPromptCount: true,
    streamsWholeTranslatedReply: false,
    hasWebSearchOptions: false,
    isServerTool: (type) => anthropicServerTool.test(type),
  },
  responses: {
    errorDialect: "openai",
    requestIdHeader: "x-request-id",
    inputField: "input",
    outputLimitFields: ["max_output_tokens"],
    requiresOutputLimit: false,
    maxChoices: 1,
    streamUsageOnRequest: false,
    requestShape: "responses",
    storesResponses: true,
    streamOpensWithPromptCount: false,
    streamsWholeTranslatedReply: true,
    hasWebSearchOptions: true,
    // The Responses codec drops hosted tools (web_search, file_search, …) rather than forward them.
    isServerTool: () => false,
  },
};

export const upstreamFormats: Readonly<Record<Dialect, UpstreamFormat>> = {
  openai: {
    paths: {
      generate: "/chat/completions",
      embeddings: "/embeddings",
      image_generations: "/images/generations",
      image_edits: "/images/edits",
    },
    headers: (apiKey) => ({ "content-type": "application/json", authorization: `Bearer ${apiKey}` }),
    vendor: "openai",
    outputLimitField: (callerField, atVendor) =>
      callerField !== undefined && callerField !== "max_output_tokens"
        ? callerField
        : atVendor
          ? "max_completion_tokens"
          : "max_tokens",
    nativeStructuredOutput: true,
    reply: openaiChatReply,
  },
  anthropic: {
    paths: { generate: "/v1/messages", count_tokens: "/v1/messages/count_tokens" },
    headers: (apiKey, forward) => ({
      "content-type": "application/json",
      "x-api-key": apiKey,
      "anthropic-version": forward["anthropic-version"] ?? "2023-06-01",
      ...(forward["anthropic-beta"] ? { "anthropic-beta": forward["anthropic-beta"] } : {}),
    }),
    vendor: "anthropic",
    outputLimitField: () => "max_tokens",
    nativeStructuredOutput: false,
    reply: anthropicMessagesReply,
  },
};

/** A centralized source (named) speaks its format as the format's own vendor, not a compatible API. */
export function isFormatVendor(format: Dialect, sourceName: string | undefined): boolean {
  return upstreamFormats[format].vendor === sourceName;
}

/** A source's models answer in a JSON schema natively (the catalog's `structuredOutput`) when they call tools. */
export function servesNativeStructuredOutput(
  format: Dialect,
  sourceName: string,
  callsTools: boolean,
): boolean {
  return callsTools && upstreamFormats[format].nativeStructuredOutput && isFormatVendor(format, sourceName);
}

/** The envelope for a path no route serves: Anthropic's for `…/messages` (its SDK reads it), OpenAI's otherwise. */
export function errorDialectOfPath(pathname: string): Dialect {
  return /\/messages(\/|$)/.test(pathname) ? "anthropic" : "openai";
}

/**
 * Caller headers an upstream of the caller's format reads (its `headers` picks them up):
 * Anthropic's version and betas. Betas that switch on pricing the
 * hold does not cover (the 1M-token context window bills long prompts at premium rates)
 * are dropped; the rest pass.
 */
export function forwardedCallerHeaders(headers: Headers): Record<string, string> {
  const forward: Record<string, string> = {};
  const version = headers.get("anthropic-version");
  if (version) forward["anthropic-version"] = version;
  const betas = (headers.get("anthropic-beta") ?? "")
    .split(",")
    .map((beta) => beta.trim())
    .filter((beta) => beta !== "" && !beta.startsWith("context-1m"));
  if (betas.length > 0) forward["anthropic-beta"] = betas.join(",");
  return forward;
}
