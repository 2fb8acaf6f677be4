import type { IncomingMessage } from "node:http";
import type { LightAbort } from "../light-abort";
import type { ApiRequest } from "./api-request";

/**
 * A request whose body server.ts already read from node:http into memory. The API reads every
 * body whole, so this keeps the bytes and makes a stream only for a caller that asks for `body`.
 */
export class BufferedRequest implements ApiRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  /** Aborted when the client goes away; a web AbortSignal is made only if `signal` is read. */
  readonly abortHandle: LightAbort;
  readonly bufferedBody: Buffer;
  readonly pathname: string | undefined;

  constructor(
    url: string,
    init: { method: string; headers: Headers; abort: LightAbort; pathname?: string },
    body: Buffer,
  ) {
    this.url = url;
    this.pathname = init.pathname;
    this.method = init.method;
    this.headers = init.headers;
    this.abortHandle = init.abort;
    this.bufferedBody = body;
  }

  get signal(): AbortSignal {
    return this.abortHandle.signal;
  }

  get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return new Blob([new Uint8Array(this.bufferedBody)]).stream();
  }

  async text(): Promise<string> {
    return this.bufferedBody.toString("utf8");
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.bufferedBody.toString("utf8"));
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.bufferedBody;
    return buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer;
  }
}

/** Reads a body whose declared length is known and within bounds; rejects if the client goes away. */
export function readDeclaredBody(incoming: IncomingMessage, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= length) chunks.push(chunk);
    });
    incoming.once("end", () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    incoming.once("error", reject);
    incoming.once("close", () => {
      if (!incoming.complete) reject(new Error("client disconnected"));
    });
  });
}
