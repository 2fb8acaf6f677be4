import { Readable } from "node:stream";
import { type HeaderRecord, PlainHeaders } from "../plain-headers";
import type { UpstreamBody } from "./upstream-body";

/**
 * An upstream answer whose body is still the chunks undici hands over (upstream-body.ts).
 * Turning it into a web ReadableStream costs more than the request itself, so that happens only
 * for a caller that asks for `body`; the hot path reads `source` (whole, or as an async iterable).
 */
export class NodeBodyResponse extends Response {
  readonly source: UpstreamBody;
  #web: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
  readonly #headers: PlainHeaders;

  /** `headers`: as undici parsed them (lower-case names), read in place (plain-headers.ts). */
  constructor(source: UpstreamBody, init: { status: number; headers: HeaderRecord }) {
    super(null, { status: init.status });
    this.source = source;
    this.#headers = new PlainHeaders(init.headers);
  }

  override get headers(): Headers {
    return this.#headers;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.#web ??= Readable.toWeb(Readable.from(this.source, { objectMode: false })) as ReadableStream<
      Uint8Array<ArrayBuffer>
    >;
    return this.#web;
  }

  override text(): Promise<string> {
    return this.source.text();
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.source.text());
  }
}
