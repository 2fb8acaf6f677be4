import type { Dialect } from "../dialect";
import type { InferenceRequest } from "../inference-request";
import { type StreamTranslator, translateStreamedResponse } from "../translate";
import type { TargetModel } from "../translate/target-model";
import {
  callerFormats,
  isFormatVendor,
  type OutputLimitField,
  outputLimitFields,
  upstreamFormats,
} from "../wire-format";

/** Plain values in: what the exchange needs to know about the caller's request and its source. */
export interface ExchangeInput {
  /** The caller's validated request. */
  request: InferenceRequest;
  /** The source's wire format. */
  upstream: Dialect;
  upstreamModelId: string;
  /** A centralized upstream's name (it may be the format's own vendor); undefined for a host. */
  sourceName: string | undefined;
  /** The output limit the hold covers: the one limit forwarded. */
  outputLimit: number;
  /** What the model can do (the catalog's capabilities), for translation. */
  target: TargetModel;
}

/** A whole reply as the caller reads it. */
export interface CallerReply {
  body: string;
  contentType: string;
}

/**
 * One request's wire work between the caller's format and its source's: the body sent upstream,
 * the reply in the caller's format, and the stream translator. One implementation per pair kind
 * (same format, translated); `createExchange` picks it. Nothing here meters, bills or routes.
 */
export interface Exchange {
  /** The upstream body: exactly one output limit, the one the hold covers, in the field the source honours. */
  upstreamBody(): string;
  /** A stream to the caller opens with the prompt's count (Anthropic's message_start): count it for `streamTranslator`. */
  readonly streamNeedsPromptCount: boolean;
  /**
   * The translator of a relayed stream's frames into the caller's format, or undefined when the
   * upstream's bytes pass as they are.
   */
  streamTranslator(promptTokens: number | undefined): StreamTranslator | undefined;
  /** A stream passed as it is drops the usage-only chunk the gateway asked for on the caller's behalf. */
  readonly dropsInjectedUsage: boolean;
  /** A whole reply (`parsed`: its JSON, or undefined) in the caller's format, naming the model the caller asked for. */
  callerReply(text: string, parsed: unknown, upstreamContentType: string): CallerReply;
  /**
   * An event stream read whole, for a caller that asked for one piece, as the one JSON body.
   * @throws GatewayError upstream_error when the stream reports an error or is cut short.
   */
  callerReplyFromStream(text: string): string;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What both kinds share: the input, the field the source honours, the reply's content type, a stream read whole. */
export abstract class ExchangeBase {
  protected readonly input: ExchangeInput;

  constructor(input: ExchangeInput) {
    this.input = input;
  }

  /** The output-limit field the source honours, given the caller's own field when it speaks the source's format. */
  protected limitField(callerField: OutputLimitField | undefined): OutputLimitField {
    const { upstream, sourceName } = this.input;
    return upstreamFormats[upstream].outputLimitField(callerField, isFormatVendor(upstream, sourceName));
  }

  /** Leaves exactly one output limit in the body: the one the hold covers, in `field`. */
  protected setOutputLimit(body: Record<string, unknown>, field: OutputLimitField): void {
    for (const name of outputLimitFields) delete body[name];
    body[field] = this.input.outputLimit;
  }

  /** The upstream's content type for its own bytes; otherwise what the caller's format reads. */
  protected reply(body: string, text: string, upstreamContentType: string): CallerReply {
    if (body === text) return { body, contentType: upstreamContentType };
    const { request } = this.input;
    const events = request.stream && callerFormats[request.dialect].streamsWholeTranslatedReply;
    return { body, contentType: events ? "text/event-stream" : "application/json" };
  }

  callerReplyFromStream(text: string): string {
    const { request, upstream } = this.input;
    return JSON.stringify(
      translateStreamedResponse(upstream, request.dialect, text, request.model, request.body),
    );
  }
}
