import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A minimal JSON-RPC 2.0 server over node:http, shaped like a Solana RPC node:
 * POST a single request or a batch, GET /health answers "ok". bigint results are
 * written as exact JSON integers (u64 values can exceed 2^53), as validators do and as
 * @solana/kit's bigint-aware parser expects.
 */

export class RpcError extends Error {
  override readonly name = "RpcError";
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** Standard JSON-RPC codes plus the Solana server codes the local chain emits. */
export const RPC_ERROR_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  sendTransactionPreflightFailure: -32002,
  transactionSignatureVerificationFailure: -32003,
  unsupportedTransactionVersion: -32015,
} as const;

export type RpcParams = readonly unknown[];
type RpcMethod = (params: RpcParams) => unknown | Promise<unknown>;
export type RpcMethodTable = Readonly<Record<string, RpcMethod>>;

const MAX_BODY_BYTES = 5 * 1024 * 1024;

export interface JsonRpcServer {
  url: string;
  close(): Promise<void>;
}

export async function startJsonRpcServer(
  methods: RpcMethodTable,
  options: { host?: string; port?: number } = {},
): Promise<JsonRpcServer> {
  const server = createServer((request, response) => {
    // Public RPC nodes answer browsers too (the dashboard's wallet code calls them directly).
    response.setHeader("access-control-allow-origin", "*");
    if (request.method === "OPTIONS") {
      response.writeHead(204, {
        "access-control-allow-methods": "POST, GET, OPTIONS",
        "access-control-allow-headers": request.headers["access-control-request-headers"] ?? "content-type",
        "access-control-max-age": "600",
      });
      response.end();
      return;
    }
    handleHttp(methods, request).then(
      ({ status, body }) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(body);
      },
      () => {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(stringifyJson(errorEnvelope(null, RPC_ERROR_CODES.internalError, "internal error")));
      },
    );
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}`, close: () => closeServer(server) };
}

async function handleHttp(
  methods: RpcMethodTable,
  request: IncomingMessage,
): Promise<{ status: number; body: string }> {
  if (request.method === "GET" && request.url === "/health") return { status: 200, body: "ok" };
  if (request.method !== "POST") {
    return {
      status: 405,
      body: stringifyJson(errorEnvelope(null, RPC_ERROR_CODES.invalidRequest, "use POST")),
    };
  }
  const text = await readBody(request);
  if (text === undefined) {
    return {
      status: 413,
      body: stringifyJson(errorEnvelope(null, RPC_ERROR_CODES.invalidRequest, "body too large")),
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {
      status: 200,
      body: stringifyJson(errorEnvelope(null, RPC_ERROR_CODES.parseError, "Parse error")),
    };
  }
  const result = Array.isArray(parsed)
    ? await Promise.all(parsed.map((entry) => handleCall(methods, entry)))
    : await handleCall(methods, parsed);
  return { status: 200, body: stringifyJson(result) };
}

async function handleCall(methods: RpcMethodTable, call: unknown): Promise<unknown> {
  if (typeof call !== "object" || call === null || !("method" in call) || typeof call.method !== "string") {
    return errorEnvelope(null, RPC_ERROR_CODES.invalidRequest, "Invalid request");
  }
  const id = "id" in call ? call.id : null;
  const method = methods[call.method];
  if (!method) return errorEnvelope(id, RPC_ERROR_CODES.methodNotFound, `Method not found: ${call.method}`);
  const params = "params" in call && Array.isArray(call.params) ? call.params : [];
  try {
    return { jsonrpc: "2.0", id, result: await method(params) };
  } catch (error) {
    if (error instanceof RpcError) return errorEnvelope(id, error.code, error.message, error.data);
    const message = error instanceof Error ? error.message : String(error);
    return errorEnvelope(id, RPC_ERROR_CODES.internalError, message);
  }
}

function errorEnvelope(id: unknown, code: number, message: string, data?: unknown) {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

const BIGINT_MARKER = "__local_solana_bigint__";

/** JSON.stringify that writes bigints as bare integers instead of throwing. */
function stringifyJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "bigint" ? `${BIGINT_MARKER}${item.toString()}` : item,
  );
  return text.replace(new RegExp(`"${BIGINT_MARKER}(-?\\d+)"`, "g"), "$1");
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on("end", () =>
      resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString("utf8")),
    );
    request.on("error", reject);
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    // Keep-alive sockets from fetch would otherwise hold close() open until they time out.
    server.closeAllConnections();
    server.close((error) => (error ? reject(error) : resolve()));
  });
}
