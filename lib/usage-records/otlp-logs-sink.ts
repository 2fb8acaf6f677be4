import type { UsageRecord } from "@pod-gateway/contracts/usage-record";
import type { SendBatch } from "./export-queue";
import { resultOf } from "./webhook-sink";

/**
 * Records as OTLP log records, POSTed in the OTLP/HTTP JSON encoding to a logs endpoint. Written
 * here rather than through @opentelemetry/sdk-logs: its batch processor drops a batch whose
 * export failed and its exporter does not retry a refused connection, and the gateway's own
 * queue already bounds, batches, retries and drains on stop (one queue, not two).
 */

type OtlpValue = { stringValue: string } | { intValue: string };
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

const text = (key: string, value: string): OtlpAttribute => ({ key, value: { stringValue: value } });
const count = (key: string, value: number): OtlpAttribute => ({ key, value: { intValue: String(value) } });

function attributesOf(record: UsageRecord): OtlpAttribute[] {
  const usage = record.usage;
  return [
    text("event.name", "pod.usage_record"),
    text("pod.request_id", record.request_id),
    text("gen_ai.request.model", record.model),
    text("gen_ai.response.model", record.served_model),
    count(
      "gen_ai.usage.input_tokens",
      usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens,
    ),
    count("gen_ai.usage.output_tokens", usage.output_tokens),
    text("pod.route", record.route),
    text("pod.provider_id", record.provider_id),
    text("pod.outcome", record.outcome),
    text("pod.charged_microunits", record.charge_microunits),
    text("pod.payer", record.payer.kind === "account" ? record.payer.account_id : record.payer.wallet),
  ];
}

/** The OTLP `ExportLogsServiceRequest` of a batch: the whole record is each log's body, as JSON. */
function otlpLogsRequest(records: UsageRecord[], serviceName: string): object {
  return {
    resourceLogs: [
      {
        resource: { attributes: [text("service.name", serviceName)] },
        scopeLogs: [
          {
            scope: { name: "pod-gateway/usage-records" },
            logRecords: records.map((record) => {
              const [, traceId, spanId] = record.traceparent?.split("-") ?? [];
              const nanos = `${BigInt(Date.parse(record.time)) * 1_000_000n}`;
              return {
                timeUnixNano: nanos,
                observedTimeUnixNano: nanos,
                severityNumber: 9,
                severityText: "INFO",
                eventName: "pod.usage_record",
                body: { stringValue: JSON.stringify(record) },
                attributes: attributesOf(record),
                ...(traceId && spanId ? { traceId, spanId } : {}),
              };
            }),
          },
        ],
      },
    ],
  };
}

export function otlpLogsSink(
  target: { url: string; headers: Record<string, string>; serviceName: string },
  timeoutMs: number,
): SendBatch<UsageRecord> {
  return async (records, signal) => {
    try {
      const response = await fetch(target.url, {
        method: "POST",
        redirect: "manual",
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]),
        headers: { ...target.headers, "content-type": "application/json" },
        body: JSON.stringify(otlpLogsRequest(records, target.serviceName)),
      });
      await response.body?.cancel();
      return resultOf(response.status);
    } catch {
      return "retry";
    }
  };
}
