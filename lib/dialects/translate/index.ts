/**
 * Dialect translation between OpenAI Chat Completions and Anthropic Messages, both ways,
 * streaming and not, and from OpenAI's Responses API to either. One IR (./ir.ts) sits
 * between three codecs (./openai, ./anthropic, ./responses); Responses is a caller dialect
 * only: no upstream is asked in it.
 */
export {
  createStreamTranslator,
  type StreamTranslator,
  wholeResponseAsStream,
} from "./create-stream-translator";
export { encodeStreamError, translateErrorBody } from "./translate-error";
export { translateRequest } from "./translate-request";
export {
  translateResponse,
  translateResponseToResponsesStream,
  translateStreamedResponse,
} from "./translate-response";
