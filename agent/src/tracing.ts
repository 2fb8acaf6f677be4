import type { JobMessage } from "@pod-gateway/contracts/agent-protocol";
import type { JobReport } from "./jobs";

/**
 * The agent's span of each job, exported by OTLP/HTTP when the standard OTEL_* variables name an
 * endpoint, as the gateway's are. Its parent is the gateway span the job's `traceparent` names,
 * so a job is one more span in the trace of the caller's request. Off, nothing is loaded: the
 * OpenTelemetry packages are imported only when an endpoint is set.
 */

/** One job's span: ended with how the job went. */
interface JobSpan {
  end(report: JobReport): void;
  /** The job threw (a bug, not a backend failure): the span says so. */
  crash(error: unknown): void;
}

export interface JobTracing {
  /** Where spans go, for the start-up line. */
  url: string;
  start(job: JobMessage, backend: { kind: string; modelId: string }): JobSpan;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** The OTLP/HTTP traces URL the standard variables name, or undefined when traces are off. */
function tracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED === "true" || env.OTEL_TRACES_EXPORTER === "none") return undefined;
  const url =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    (env.OTEL_EXPORTER_OTLP_ENDPOINT && `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`);
  return url && URL.canParse(url) ? url : undefined;
}

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Starts exporting job spans when the environment asks for it; undefined when it does not. */
export async function startJobTracing(env: NodeJS.ProcessEnv): Promise<JobTracing | undefined> {
  const url = tracesUrl(env);
  if (url === undefined) return undefined;
  const [
    { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    sdk,
  ] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-node"),
  ]);
  const provider = new sdk.NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME ?? "pod-agent" }),
    spanProcessors: [
      new sdk.BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 500 }),
    ],
  });
  const tracer = provider.getTracer("pod-agent");
  return {
    url,
    start(job, backend) {
      const [, traceId, spanId, flags] = traceparentPattern.exec(job.traceparent ?? "") ?? [];
      // The gateway's span is the parent; a job sent without one starts a trace of its own.
      const parent =
        traceId && spanId
          ? trace.setSpanContext(ROOT_CONTEXT, {
              traceId,
              spanId,
              traceFlags: Number.parseInt(flags ?? "01", 16),
              isRemote: true,
            })
          : ROOT_CONTEXT;
      // A GenAI client span: the agent calls its backend for the model, as the gateway calls an upstream.
      const span = tracer.startSpan(
        `chat ${job.model_id}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": backend.kind,
            "gen_ai.request.model": job.model_id,
            "gen_ai.response.model": backend.modelId,
            "pod.job_id": job.job_id,
          },
        },
        parent,
      );
      return {
        end(report) {
          span.setAttributes({
            "pod.job.outcome": report.outcome,
            "pod.job.bytes": report.bytes,
            ...(report.status === undefined ? {} : { "http.response.status_code": report.status }),
            ...(report.outputTokens === undefined
              ? {}
              : { "gen_ai.usage.output_tokens": report.outputTokens }),
          });
          if (report.outcome === "failed")
            span.setStatus({ code: SpanStatusCode.ERROR, message: report.error ?? "failed" });
          span.end();
        },
        crash(error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR, message: "the job crashed" });
          span.end();
        },
      };
    },
    shutdown: () => provider.shutdown(),
  };
}
