/**
 * Dialect translation between OpenAI Chat Completions and Anthropic Messages, both ways,
 * streaming and not. One IR (./ir.ts) sits between two codecs (./openai, ./anthropic).
 */
export { createStreamTranslator, type StreamTranslatorOptions } from "./create-stream-translator";
export type { Dialect } from "./ir";
export { encodeStreamError, translateErrorBody } from "./translate-error";
export { translateRequest } from "./translate-request";
export { translateResponse } from "./translate-response";
