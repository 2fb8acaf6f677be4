import { Readable } from "node:stream";
import { type HeaderRecord, PlainHeaders } from "../plain-headers";

/**
 * An upstream answer whose body is still the node stream undici handed over. Turning it
 * into a web ReadableStream costs more than the request itself, so that happens only for a
 * caller that asks for `body` (a relayed stream); the non-streamed hot path reads the node
 * stream directly (readUpstreamBody).
 */
export class NodeBodyResponse extends Response {
  readonly nodeBody: Readable;
  #web: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
  readonly #headers: PlainHeaders;

  /** `headers`: as undici parsed them (lower-case names), read in place (plain-headers.ts). */
  constructor(nodeBody: Readable, init: { status: number; headers: HeaderRecord }) {
    super(null, { status: init.status });
    this.nodeBody = nodeBody;
    this.#headers = new PlainHeaders(init.headers);
  }

  override get headers(): Headers {
    return this.#headers;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.#web ??= Readable.toWeb(this.nodeBody) as ReadableStream<Uint8Array<ArrayBuffer>>;
    return this.#web;
  }

  override async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.nodeBody) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}
