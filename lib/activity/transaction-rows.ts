import { activityKindName, type TransactionRow } from "@pod-gateway/contracts/activity";
import type { ActivityItem } from "./queries";

const text = (value: unknown) => (typeof value === "string" ? value : null);

/** Card credits whose Stripe receipt the gateway can open: the checkout's and auto top-up's. */
const receiptKinds = new Set(["card_credit", "card_auto_top_up"]);

/** One ledger entry as the API and the CSV export show it, with its kind in words. */
export function transactionRow(item: ActivityItem, receiptBase: string): TransactionRow {
  const base = {
    id: item.transactionId,
    kind: item.kind,
    label: activityKindName(item.kind),
    amount_microunits: Number(item.amount),
    created_at: item.createdAt.toISOString(),
  };
  if (item.kind === "inference")
    return {
      ...base,
      request_id: text(item.metadata.request_id),
      model: text(item.metadata.model),
      route: text(item.metadata.route),
      provider_id: text(item.metadata.provider),
      api_key: item.apiKeyLabel,
      input_tokens: item.inputTokens,
      output_tokens: item.outputTokens,
      cache_read_tokens: item.cacheReadTokens,
      cache_write_tokens: item.cacheWriteTokens,
      receipt: item.receipt,
    };
  return {
    ...base,
    reason: text(item.metadata.reason),
    receipt_url: receiptKinds.has(item.kind) ? `${receiptBase}/${item.transactionId}/receipt` : null,
  };
}

const csvColumns = [
  "created_at",
  "label",
  "kind",
  "amount_microunits",
  "amount_usd",
  "model",
  "route",
  "provider_id",
  "api_key",
  "input_tokens",
  "output_tokens",
  "request_id",
  "reason",
] as const;

/** A CSV cell: quoted when it must be, and never read as a formula by a spreadsheet. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let textValue = String(value);
  if (/^[=+\-@\t\r]/.test(textValue) && !/^-?\d+(\.\d+)?$/.test(textValue)) textValue = `'${textValue}`;
  return /[",\n\r]/.test(textValue) ? `"${textValue.replaceAll('"', '""')}"` : textValue;
}

/** Exact dollars from microunits (no floating point). */
function usd(microunits: number): string {
  const negative = microunits < 0;
  const absolute = BigInt(Math.abs(microunits));
  return `${negative ? "-" : ""}${absolute / 1_000_000n}.${(absolute % 1_000_000n).toString().padStart(6, "0")}`;
}

export function transactionsCsv(rows: TransactionRow[]): string {
  const lines = [csvColumns.join(",")];
  for (const row of rows)
    lines.push(
      csvColumns
        .map((column) => cell(column === "amount_usd" ? usd(row.amount_microunits) : row[column]))
        .join(","),
    );
  return `${lines.join("\r\n")}\r\n`;
}
