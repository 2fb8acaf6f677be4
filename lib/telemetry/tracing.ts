import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";

/**
 * OpenTelemetry traces of each request, off unless the standard OTEL_* settings name an OTLP
 * endpoint. Every helper here checks one boolean first, so with tracing off the request path
 * does what it did before: no span objects, no context switches, no header writes. The SDK and
 * its exporter are imported only when tracing starts (about 130 ms of CPU and their memory at
 * every start otherwise).
 */

let provider: NodeTracerProvider | undefined;
const tracer = () => trace.getTracer("pod-gateway");

export function tracingOn(): boolean {
  return provider !== undefined;
}

/** The standard OTEL_* settings this reads (validated in lib/env.ts). */
interface TracingSettings {
  OTEL_SDK_DISABLED: boolean;
  OTEL_TRACES_EXPORTER: "otlp" | "none";
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
}

/** The OTLP/HTTP traces URL the settings name, or undefined when traces are off. */
function tracesUrl(env: TracingSettings): string | undefined {
  if (env.OTEL_SDK_DISABLED || env.OTEL_TRACES_EXPORTER === "none") return undefined;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT)
    return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
  return undefined;
}

/**
 * Starts exporting spans when the settings ask for it (once per process: the OpenTelemetry API
 * is global). Resolves to what flushes and stops it, or undefined when traces are off.
 */
export async function startTracing(env: TracingSettings): Promise<(() => Promise<void>) | undefined> {
  const url = tracesUrl(env);
  if (url === undefined || provider) return undefined;
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor, NodeTracerProvider }] =
    await Promise.all([
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/sdk-trace-node"),
    ]);
  // Two starts racing through the imports: the first to get here is the one.
  if (provider) return undefined;
  const started = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME ?? "pod-gateway" }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 500 })],
  });
  started.register();
  provider = started;
  return async () => {
    if (provider !== started) return;
    provider = undefined;
    await started.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  };
}

/**
 * Runs `work` inside a span named `name` (a child of the active span, or of `parent`), ending it
 * when `work` settles and marking it failed when it throws. Tracing off: `work(undefined)`.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
  options: { kind?: SpanKind; parent?: Context } = {},
): Promise<T> {
  // Not an async function: off, the caller gets `work`'s own promise, with no wrapper around it.
  if (!provider) return work(undefined);
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(
    name,
    { attributes, kind: options.kind ?? SpanKind.INTERNAL },
    parent,
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : "" });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * Runs `work` in a trace of its own (a server span with no parent), whatever trace was active:
 * work that a request set going (a canary) must not carry that request's trace id onwards.
 */
export function inNewTrace<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (!provider) return work();
  return inSpan(name, attributes, () => work(), { kind: SpanKind.SERVER, parent: ROOT_CONTEXT });
}

/**
 * A span that outlives the call that opens it (an agent's job, ended by its last frame), a child
 * of the active span or of `parent`; undefined with tracing off.
 */
export function openSpan(
  name: string,
  attributes: Attributes,
  options: { kind?: SpanKind; parent?: Context } = {},
): Span | undefined {
  if (!provider) return undefined;
  return tracer().startSpan(
    name,
    { attributes, kind: options.kind ?? SpanKind.INTERNAL },
    options.parent ?? context.active(),
  );
}

/** The `traceparent` that names `span`, to send where it continues (an agent, another replica). */
export function traceparentOf(span: Span | undefined): string | undefined {
  if (!span) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  return carrier.traceparent;
}

/** Runs `work` with the context a `traceparent` names as the active one (as is, when tracing is off or none came). */
export function withTraceparent<T>(traceparent: string | undefined, work: () => T): T {
  if (!provider || traceparent === undefined) return work();
  return context.with(propagation.extract(context.active(), { traceparent }), work);
}

/** The active trace context, to carry into work that outlives the call (a stream's settlement). */
export function activeTraceContext(): Context | undefined {
  return provider ? context.active() : undefined;
}

/** Adds `traceparent` (and `tracestate`) of the active span to outgoing headers. */
export function injectTraceContext(headers: Record<string, string>, from?: Context): Record<string, string> {
  if (!provider) return headers;
  propagation.inject(from ?? context.active(), headers);
  return headers;
}

/** The context a caller's `traceparent` names, for a span that continues its trace. */
export function extractTraceContext(carrier: Record<string, string | undefined>): Context | undefined {
  if (!provider) return undefined;
  return propagation.extract(context.active(), carrier, {
    get: (headers, key) => headers[key],
    keys: (headers) => Object.keys(headers),
  });
}

/** A settled request in the GenAI semantic conventions' words (and the gateway's charge). */
export function settlementAttributes(
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number },
  charged: bigint,
  model: string,
): Attributes {
  return {
    "gen_ai.response.model": model,
    "gen_ai.usage.input_tokens": usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
    "gen_ai.usage.output_tokens": usage.outputTokens,
    "gen_ai.usage.cache_read.input_tokens": usage.cacheReadTokens,
    "gen_ai.usage.cache_creation.input_tokens": usage.cacheWriteTokens,
    "pod.charged_microunits": charged.toString(),
  };
}

export { type Context, type Span, SpanKind };
