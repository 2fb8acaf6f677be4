import { PlainHeaders } from "../plain-headers";

/**
 * A Response whose body is a string already in memory. server.ts writes `bufferedText`
 * straight to node:http; anyone else reading `body` gets a stream made on demand. A web
 * Response built with a body wraps it in a ReadableStream up front, which the non-streamed
 * inference answer (the hot path) has no use for.
 */
export class BufferedResponse extends Response {
  readonly bufferedText: string;
  readonly #headers: PlainHeaders;

  constructor(text: string, init: { status: number; headers: Record<string, string> }) {
    super(null, { status: init.status });
    this.bufferedText = text;
    this.#headers = PlainHeaders.fromWritten(init.headers);
  }

  /** The handler's record as it wrote it (plain-headers.ts: no undici Headers per answer). */
  override get headers(): Headers {
    return this.#headers;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return new Blob([this.bufferedText]).stream();
  }

  override async text(): Promise<string> {
    return this.bufferedText;
  }

  override async json(): Promise<unknown> {
    return JSON.parse(this.bufferedText);
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return new TextEncoder().encode(this.bufferedText).buffer as ArrayBuffer;
  }
}
