import type { UsageRecord } from "@pod-gateway/contracts/usage-record";
import type { Env } from "../env";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import type { Usage } from "../pricing/cost";
import { wireCounts, wirePayer } from "../receipts/wire-usage";
import { ExportQueue, type ExportQueueLimits, type SendBatch } from "./export-queue";
import { otlpLogsSink } from "./otlp-logs-sink";
import { webhookSink } from "./webhook-sink";

/** What a settled request tells its usage record. */
export interface UsageRecordFacts {
  requestId: string;
  accountId: bigint;
  payer: { wallet: string; network: string } | undefined;
  model: string;
  servedModel: string;
  route: UsageRecord["route"];
  providerId: string;
  usage: Usage;
  countedBy: UsageRecord["usage"]["counted_by"];
  charged: bigint;
  hostShare: bigint;
  outcome: UsageRecord["outcome"];
  receipt: string | undefined;
  traceparent: string | undefined;
  /** The request body and the answer's text: read only when records carry content. */
  content(): { request: string; response: string };
}

function recordOf(facts: UsageRecordFacts, withContent: boolean): UsageRecord {
  return {
    request_id: facts.requestId,
    time: new Date().toISOString(),
    payer: wirePayer(facts.accountId, facts.payer),
    model: facts.model,
    served_model: facts.servedModel,
    route: facts.route,
    provider_id: facts.providerId,
    usage: wireCounts(facts.usage, facts.countedBy),
    charge_microunits: facts.charged.toString(),
    host_share_microunits: facts.hostShare.toString(),
    outcome: facts.outcome,
    ...(facts.receipt ? { receipt: facts.receipt } : {}),
    ...(facts.traceparent ? { traceparent: facts.traceparent } : {}),
    ...(withContent ? { content: facts.content() } : {}),
  };
}

/**
 * Per-request usage records on their way to where the operator wants them (a webhook, an OTLP
 * logs endpoint, or both), each through its own bounded queue: `record` never waits on a
 * receiver, and a slow or dead one never slows or stops a request.
 */
export class UsageRecords {
  readonly #queues: ExportQueue<UsageRecord>[];
  readonly #withContent: boolean;
  readonly #drainMs: number;

  constructor(queues: ExportQueue<UsageRecord>[], options: { withContent: boolean; drainMs: number }) {
    this.#queues = queues;
    this.#withContent = options.withContent;
    this.#drainMs = options.drainMs;
  }

  /** Records waiting in the fullest queue. */
  get queued(): number {
    return Math.max(0, ...this.#queues.map((queue) => queue.queued));
  }

  record(facts: UsageRecordFacts): void {
    const record = recordOf(facts, this.#withContent);
    for (const queue of this.#queues) queue.add(record);
  }

  /** Sends what is queued, for at most USAGE_RECORDS_DRAIN_MS (a graceful stop). */
  async close(): Promise<void> {
    await Promise.all(this.#queues.map((queue) => queue.close(this.#drainMs)));
  }
}

type UsageRecordSettings = Pick<
  Env,
  | "USAGE_RECORDS_WEBHOOK_URL"
  | "USAGE_RECORDS_WEBHOOK_SECRET"
  | "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"
  | "OTEL_LOGS_EXPORTER"
  | "OTEL_EXPORTER_OTLP_ENDPOINT"
  | "OTEL_EXPORTER_OTLP_LOGS_HEADERS"
  | "OTEL_SDK_DISABLED"
  | "OTEL_SERVICE_NAME"
  | "USAGE_RECORDS_CONTENT"
  | "USAGE_RECORDS_QUEUE_MAX"
  | "USAGE_RECORDS_BATCH_MAX"
  | "USAGE_RECORDS_DELAY_MS"
  | "USAGE_RECORDS_TIMEOUT_MS"
  | "USAGE_RECORDS_DRAIN_MS"
>;

/** The OTLP logs URL the settings name, or undefined. */
function logsUrl(env: UsageRecordSettings): string | undefined {
  if (env.OTEL_SDK_DISABLED) return undefined;
  if (env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT) return env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT;
  if (env.OTEL_LOGS_EXPORTER === "otlp" && env.OTEL_EXPORTER_OTLP_ENDPOINT)
    return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/logs`;
  return undefined;
}

/** The usage records the settings ask for, or undefined when they name no destination. */
export function loadUsageRecords(env: UsageRecordSettings): UsageRecords | undefined {
  const limits: ExportQueueLimits = {
    maxQueued: env.USAGE_RECORDS_QUEUE_MAX,
    maxBatch: env.USAGE_RECORDS_BATCH_MAX,
    delayMs: env.USAGE_RECORDS_DELAY_MS,
    firstBackoffMs: 500,
    maxBackoffMs: 30_000,
  };
  const queue = (destination: string, send: SendBatch<UsageRecord>) =>
    new ExportQueue(destination, send, limits, {
      dropped: (count, reason) => gatewayMetrics.usageRecordsDropped.inc({ destination, reason }, count),
      failed: () => gatewayMetrics.usageRecordSendFailures.inc({ destination }),
    });
  const queues: ExportQueue<UsageRecord>[] = [];
  if (env.USAGE_RECORDS_WEBHOOK_URL && env.USAGE_RECORDS_WEBHOOK_SECRET) {
    const target = { url: env.USAGE_RECORDS_WEBHOOK_URL, secret: env.USAGE_RECORDS_WEBHOOK_SECRET };
    queues.push(queue("webhook", webhookSink(target, env.USAGE_RECORDS_TIMEOUT_MS)));
  }
  const url = logsUrl(env);
  if (url) {
    const target = {
      url,
      headers: env.OTEL_EXPORTER_OTLP_LOGS_HEADERS ?? {},
      serviceName: env.OTEL_SERVICE_NAME ?? "pod-gateway",
    };
    queues.push(queue("otlp", otlpLogsSink(target, env.USAGE_RECORDS_TIMEOUT_MS)));
  }
  if (queues.length === 0) return undefined;
  return new UsageRecords(queues, {
    withContent: env.USAGE_RECORDS_CONTENT === "on",
    drainMs: env.USAGE_RECORDS_DRAIN_MS,
  });
}
