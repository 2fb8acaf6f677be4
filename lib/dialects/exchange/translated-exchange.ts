import { GatewayError } from "../../errors/gateway-error";
import {
  createStreamTranslator,
  type StreamTranslator,
  translateRequest,
  translateResponse,
  translateResponseToResponsesStream,
} from "../translate";
import { callerFormats } from "../wire-format";
import { type CallerReply, type Exchange, ExchangeBase, type ExchangeInput, isRecord } from "./exchange";

/**
 * The caller speaks another format than its source: the request, the reply and every stream
 * frame go through the intermediate form (translate/ir.ts), with the upstream's model id going
 * out and the caller's coming back.
 */
export class TranslatedExchange extends ExchangeBase implements Exchange {
  readonly dropsInjectedUsage = false;
  readonly streamNeedsPromptCount: boolean;

  constructor(input: ExchangeInput) {
    super(input);
    this.streamNeedsPromptCount =
      input.request.stream && callerFormats[input.request.dialect].streamOpensWithPromptCount;
  }

  upstreamBody(): string {
    const { request, upstream, upstreamModelId, target } = this.input;
    const source: Record<string, unknown> = { ...request.body };
    this.setOutputLimit(source, request.maxTokensField);
    const translated = translateRequest(request.dialect, upstream, source, upstreamModelId, target);
    this.setOutputLimit(translated, this.limitField(undefined));
    return JSON.stringify(translated);
  }

  streamTranslator(promptTokens: number | undefined): StreamTranslator {
    const { request, upstream } = this.input;
    return createStreamTranslator(upstream, request.dialect, {
      model: request.model,
      includeUsage: request.includeUsage,
      callerRequest: request.body,
      ...(promptTokens !== undefined ? { inputTokens: promptTokens } : {}),
    });
  }

  callerReply(text: string, parsed: unknown, upstreamContentType: string): CallerReply {
    const { request, upstream } = this.input;
    if (!isRecord(parsed))
      throw new GatewayError("upstream_error", "upstream error: the provider's response is not valid JSON");
    // A Responses client that asked to stream reads events, whatever the source sent.
    const body =
      request.stream && callerFormats[request.dialect].streamsWholeTranslatedReply
        ? translateResponseToResponsesStream(upstream, parsed, request.body)
        : JSON.stringify(translateResponse(upstream, request.dialect, parsed, request.model, request.body));
    return this.reply(body, text, upstreamContentType);
  }
}
