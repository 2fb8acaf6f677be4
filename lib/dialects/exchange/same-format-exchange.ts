import { createStreamTranslator, type StreamTranslator, translateResponse } from "../translate";
import { callerFormats } from "../wire-format";
import { type CallerReply, type Exchange, ExchangeBase, type ExchangeInput, isRecord } from "./exchange";

/**
 * The caller speaks its source's format: the caller's bytes go as they are unless the model id,
 * the output limit or the usage option must change, and the reply's bytes come back as they
 * are unless the model id must.
 */
export class SameFormatExchange extends ExchangeBase implements Exchange {
  readonly streamNeedsPromptCount = false;
  readonly dropsInjectedUsage: boolean;
  readonly #renamed: boolean;

  constructor(input: ExchangeInput) {
    super(input);
    this.#renamed = input.upstreamModelId !== input.request.model;
    this.dropsInjectedUsage =
      !this.#renamed &&
      callerFormats[input.request.dialect].streamUsageOnRequest &&
      !input.request.includeUsage;
  }

  upstreamBody(): string {
    const { request, upstreamModelId, outputLimit } = this.input;
    const callerField = request.maxTokens !== undefined ? request.maxTokensField : undefined;
    const field = this.limitField(callerField);
    const injectUsage =
      callerFormats[request.dialect].streamUsageOnRequest && request.stream && !request.includeUsage;
    const other = field === "max_tokens" ? "max_completion_tokens" : "max_tokens";
    const limitAsSent = request.body[field] === outputLimit && request.body[other] === undefined;
    if (!this.#renamed && limitAsSent && !injectUsage) return request.rawBody;
    const body: Record<string, unknown> = { ...request.body, model: upstreamModelId };
    this.setOutputLimit(body, field);
    if (injectUsage) {
      const options = isRecord(body.stream_options) ? body.stream_options : {};
      body.stream_options = { ...options, include_usage: true };
    }
    return JSON.stringify(body);
  }

  /** Same model: bytes pass. Otherwise the translator rewrites the model and drops the usage chunk the caller did not ask for. */
  streamTranslator(): StreamTranslator | undefined {
    if (!this.#renamed) return undefined;
    const { request, upstream } = this.input;
    return createStreamTranslator(upstream, request.dialect, {
      model: request.model,
      includeUsage: request.includeUsage,
      callerRequest: request.body,
    });
  }

  callerReply(text: string, parsed: unknown, upstreamContentType: string): CallerReply {
    const { request, upstream } = this.input;
    const body =
      !this.#renamed || !isRecord(parsed)
        ? text
        : JSON.stringify(translateResponse(upstream, request.dialect, parsed, request.model));
    return this.reply(body, text, upstreamContentType);
  }
}
