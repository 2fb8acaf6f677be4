import type { UsageRecord, UsageRecordBatch } from "@pod-gateway/contracts/usage-record";
import { deliverSignedWebhook } from "../balance-watch/send-balance-alert";
import type { SendBatch, SendResult } from "./export-queue";

/** A status worth sending the same batch again for: the receiver may take it later. */
function retryable(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 429 || status >= 500;
}

export function resultOf(status: number | undefined): SendResult {
  if (status !== undefined && status >= 200 && status < 300) return "sent";
  return retryable(status) ? "retry" : "refused";
}

/**
 * Batches of records POSTed to the operator's webhook, signed in `Pod-Signature` with its
 * secret like the gateway's other webhooks. The operator named it, so a private address is fine.
 */
export function webhookSink(
  target: { url: string; secret: string },
  timeoutMs: number,
): SendBatch<UsageRecord> {
  return async (records, signal) => {
    const batch: UsageRecordBatch = { type: "usage.records", sent_at: new Date().toISOString(), records };
    const delivery = await deliverSignedWebhook({ ...target, allowPrivate: true }, batch, {
      userAgent: "PodGateway-UsageRecords/1",
      timeoutMs,
      signal,
    });
    return resultOf(delivery.status);
  };
}
