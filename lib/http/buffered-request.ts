import type { IncomingMessage } from "node:http";

/**
 * A Request whose body server.ts already read from node:http into memory. A web Request
 * built with a body wraps it in a ReadableStream (with its transfer machinery) whether or
 * not anyone streams it; the API reads every body whole, so this one keeps the bytes and
 * makes a stream only for a caller that asks for `body`.
 */
export class BufferedRequest extends Request {
  readonly bufferedBody: Buffer;

  constructor(url: URL, init: { method: string; headers: Headers; signal: AbortSignal }, body: Buffer) {
    super(url, init);
    this.bufferedBody = body;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return new Blob([new Uint8Array(this.bufferedBody)]).stream();
  }

  override async text(): Promise<string> {
    return this.bufferedBody.toString("utf8");
  }

  override async json(): Promise<unknown> {
    return JSON.parse(this.bufferedBody.toString("utf8"));
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
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
