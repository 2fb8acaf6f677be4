import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local OTLP/HTTP receiver (JSON encoding, what @opentelemetry/exporter-trace-otlp-http sends):
 * it decodes each export into flat spans a test can group by trace, and each logs export (the
 * gateway's usage records) into flat log records.
 */

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  service: string | undefined;
  attributes: Record<string, string | number | boolean>;
}

/** One OTLP log record as received (a usage record's body is its JSON). */
interface ReceivedLog {
  traceId: string | undefined;
  spanId: string | undefined;
  service: string | undefined;
  body: string;
  attributes: Record<string, string | number | boolean>;
  headers: Record<string, string | string[] | undefined>;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Log records posted to /v1/logs. */
  logs: ReceivedLog[];
  /** Resolves once `predicate` holds of the spans received (polled), or rejects after `timeoutMs`. */
  until(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpLogsExport {
  resourceLogs?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeLogs?: Array<{
      logRecords?: Array<{
        traceId?: string;
        spanId?: string;
        body?: OtlpValue;
        attributes?: OtlpAttribute[];
      }>;
    }>;
  }>;
}

interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
      }>;
    }>;
  }>;
}

function scalarOf(value: OtlpValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? "";
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((attribute) => [attribute.key, scalarOf(attribute.value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const logs: ReceivedLog[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.url === "/v1/logs" && request.headers["content-type"]?.includes("json")) {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpLogsExport;
        for (const resourceLogs of body.resourceLogs ?? []) {
          const service = attributesOf(resourceLogs.resource?.attributes)["service.name"];
          for (const scope of resourceLogs.scopeLogs ?? [])
            for (const record of scope.logRecords ?? [])
              logs.push({
                traceId: record.traceId || undefined,
                spanId: record.spanId || undefined,
                service: typeof service === "string" ? service : undefined,
                body: String(record.body ? scalarOf(record.body) : ""),
                attributes: attributesOf(record.attributes),
                headers: request.headers,
              });
        }
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      }
      if (request.url !== "/v1/traces" || !request.headers["content-type"]?.includes("json")) {
        response.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport;
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = attributesOf(resourceSpans.resource?.attributes)["service.name"];
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              kind: span.kind,
              service: typeof service === "string" ? service : undefined,
              attributes: attributesOf(span.attributes),
            });
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    spans,
    logs,
    async until(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline)
          throw new Error(`spans never matched; got ${spans.map((s) => s.name).join(", ")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return spans;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
