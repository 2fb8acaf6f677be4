import { randomBytes } from "node:crypto";
import type { BalanceAlertView } from "@pod-gateway/contracts/balance-watch";
import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { lowBalanceAlerts } from "../db/schema";
import type { TokenRecord } from "../tokens/find-token";

export type BalanceAlertRow = typeof lowBalanceAlerts.$inferSelect;

export async function findBalanceAlert(
  database: Database,
  tokenId: string,
): Promise<BalanceAlertRow | undefined> {
  const [row] = await database.select().from(lowBalanceAlerts).where(eq(lowBalanceAlerts.tokenId, tokenId));
  return row;
}

/** Sets the threshold and webhook; the signing secret is made once and kept across changes. */
export async function putBalanceAlert(
  database: Database,
  owner: TokenRecord,
  input: { thresholdMicrounits: bigint; webhookUrl: string | null },
): Promise<BalanceAlertRow> {
  const [row] = await database
    .insert(lowBalanceAlerts)
    .values({
      tokenId: owner.id,
      accountId: owner.accountId,
      thresholdMicrounits: input.thresholdMicrounits,
      webhookUrl: input.webhookUrl,
      webhookSecret: `whsec_pod_${randomBytes(24).toString("hex")}`,
    })
    .onConflictDoUpdate({
      target: lowBalanceAlerts.tokenId,
      // A new threshold is a new crossing to watch for.
      set: {
        thresholdMicrounits: input.thresholdMicrounits,
        webhookUrl: input.webhookUrl,
        armed: true,
        updatedAt: new Date(),
      },
    })
    .returning();
  if (!row) throw new Error("balance alert upsert returned nothing");
  return row;
}

export async function deleteBalanceAlert(database: Database, tokenId: string): Promise<void> {
  await database.delete(lowBalanceAlerts).where(eq(lowBalanceAlerts.tokenId, tokenId));
}

export function balanceAlertView(row: BalanceAlertRow, available: bigint): BalanceAlertView {
  return {
    threshold_microunits: Number(row.thresholdMicrounits),
    webhook_url: row.webhookUrl,
    webhook_secret: row.webhookSecret,
    below: available < row.thresholdMicrounits,
    last_sent_at: row.lastSentAt?.toISOString() ?? null,
    last_result: row.lastResult,
  };
}
