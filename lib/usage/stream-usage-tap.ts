import type { Dialect } from "../dialects/dialect";
import type { FrameVerdict, ReplyReader, StreamReadState } from "../dialects/usage/reply-reader";
import { absentClaim, type UsageClaim } from "../dialects/usage/usage-claim";
import { upstreamFormats } from "../dialects/wire-format";
import { RelayedContent } from "./relayed-content";

/**
 * Watches a stream's frames without changing them: the usage it claims, the content it
 * carries to the caller (what the gateway meters), the terminal event and an in-band error,
 * each frame read by its format's reader (lib/dialects/usage, through the same bounded usage
 * readers translation uses).
 */
export class StreamUsageTap implements StreamReadState {
  readonly dialect: Dialect;
  claim: UsageClaim = absentClaim;
  readonly content = new RelayedContent();
  sawTerminal = false;
  upstreamError: string | undefined;
  readonly #reader: ReplyReader;

  constructor(dialect: Dialect) {
    this.dialect = dialect;
    this.#reader = upstreamFormats[dialect].reply;
  }

  inspect(message: { event?: string | undefined; data: string }): FrameVerdict {
    return this.#reader.readFrame(message, this, this.content);
  }
}
