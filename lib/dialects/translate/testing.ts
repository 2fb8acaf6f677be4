import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createSseDecoder } from "../../sse/sse-decoder";
import { createStreamTranslator, type StreamTranslatorOptions } from "./create-stream-translator";
import type { Dialect } from "./ir";

/** Test-only helpers: fixture loading, chunked replay, SSE frame parsing, a tiny HTTP server. */

export function readFixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url)));
}

export function readJsonFixture(name: string): Record<string, unknown> {
  return JSON.parse(new TextDecoder().decode(readFixture(name)));
}

/** Splits bytes into pieces of the given size, to prove nothing depends on chunk boundaries. */
export function splitBytes(bytes: Uint8Array, size: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += size)
    pieces.push(bytes.subarray(offset, offset + size));
  return pieces;
}

export function toCrlf(bytes: Uint8Array): Uint8Array {
  return new TextEncoder().encode(new TextDecoder().decode(bytes).replaceAll("\n", "\r\n"));
}

export function streamOf(pieces: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
}

export async function translateBytes(
  from: Dialect,
  to: Dialect,
  pieces: Uint8Array[],
  options: StreamTranslatorOptions,
): Promise<string> {
  const output = streamOf(pieces).pipeThrough(createStreamTranslator(from, to, options));
  return new Response(output).text();
}

export interface SseFrame {
  event: string | undefined;
  data: string;
}

export function parseSseFrames(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  const decoder = createSseDecoder((message) => frames.push({ event: message.event, data: message.data }));
  decoder.push(new TextEncoder().encode(text));
  decoder.end();
  return frames;
}

/** JSON payloads of the frames, skipping OpenAI's `[DONE]` sentinel. */
export function parseSseJson(text: string): Array<Record<string, unknown>> {
  return parseSseFrames(text)
    .filter((frame) => frame.data !== "[DONE]")
    .map((frame) => JSON.parse(frame.data));
}

export async function readJsonBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.from(chunk));
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/** Writes translated SSE bytes the way the gateway route would, in small pieces. */
export async function sendStream(response: ServerResponse, body: ReadableStream<Uint8Array>): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) response.write(read.value);
  response.end();
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

export interface TestServer {
  baseUrl: string;
  close(): Promise<void>;
}

export async function startTestServer(
  handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): Promise<TestServer> {
  const server = createServer((request, response) => {
    handler(request, response).catch((error: unknown) => {
      sendJson(response, 500, { error: { message: String(error), type: "test_server_error" } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/** Accumulators over translated output, for assertions. */
export type Json = Record<string, unknown>;
export const openaiDeltas = (chunks: Json[]) =>
  chunks.flatMap((chunk) => (chunk.choices as Array<{ delta: Json; finish_reason: string | null }>) ?? []);

export function concatText(chunks: Json[]): string {
  return openaiDeltas(chunks)
    .map((choice) => (typeof choice.delta.content === "string" ? choice.delta.content : ""))
    .join("");
}

export function accumulateToolCalls(chunks: Json[]) {
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const choice of openaiDeltas(chunks)) {
    const deltas = (choice.delta.tool_calls ?? []) as Array<{
      index: number;
      id?: string;
      function: { name?: string; arguments?: string };
    }>;
    for (const delta of deltas) {
      const call = calls[delta.index] ?? { id: "", name: "", arguments: "" };
      calls[delta.index] = call;
      if (delta.id) call.id = delta.id;
      if (delta.function.name) call.name += delta.function.name;
      call.arguments += delta.function.arguments ?? "";
    }
  }
  return calls;
}

export function anthropicPartialJson(events: Json[], index: number): string {
  return events
    .filter((event) => event.type === "content_block_delta" && event.index === index)
    .map((event) => (event.delta as { partial_json?: string }).partial_json ?? "")
    .join("");
}
