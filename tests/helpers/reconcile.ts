import { spawn } from "node:child_process";
import path from "node:path";
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { type Executor, queryRows } from "../../lib/db/client";
import type { TestGateway } from "./gateway";
import { testAdminToken } from "./gateway";

interface ReconcileJson {
  reconciled: boolean;
  unexplained_microunits: string;
  differences: { source: string; reference: string; microunits: string; detail: string }[];
  checked: string[];
  unreadable: { source: string; reason: string }[];
}

/** GET /v1/admin/reconcile on a test gateway. */
export async function reconcileOver(gateway: TestGateway): Promise<ReconcileJson> {
  const response = await fetch(`${gateway.baseUrl}/v1/admin/reconcile`, {
    headers: { authorization: `Bearer ${testAdminToken}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as ReconcileJson;
}

/** `npm run reconcile` against a Postgres database: its exit code and report. */
export function reconcileCommand(
  env: Record<string, string>,
): Promise<{ code: number | null; report: ReconcileJson }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/reconcile.ts"], {
      cwd: path.resolve(import.meta.dirname, "../.."),
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "test", LOG_LEVEL: "silent", ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, report: JSON.parse(stdout) as ReconcileJson }));
  });
}

/**
 * Removes one ledger transaction (entries and row) as a lost or tampered row would, and returns
 * a function that puts it back exactly, so the suite's own final ledger check still passes.
 */
export async function removeLedgerTransaction(
  executor: Executor,
  idempotencyKey: string,
): Promise<() => Promise<void>> {
  const [transaction] = await queryRows<{ id: string; kind: string; metadata: string; created_at: string }>(
    executor,
    sql`SELECT id, kind, metadata::text AS metadata, created_at::text AS created_at FROM ledger_transactions WHERE idempotency_key = ${idempotencyKey}`,
  );
  if (!transaction) throw new Error(`no ledger transaction ${idempotencyKey}`);
  const entries = await queryRows<{ id: string; account_id: string; amount: string }>(
    executor,
    sql`SELECT id::text AS id, account_id::text AS account_id, amount::text AS amount FROM ledger_entries WHERE transaction_id = ${transaction.id}`,
  );
  await executor.execute(sql`DELETE FROM ledger_entries WHERE transaction_id = ${transaction.id}`);
  await executor.execute(sql`DELETE FROM ledger_transactions WHERE id = ${transaction.id}`);
  return async () => {
    await executor.execute(
      sql`INSERT INTO ledger_transactions (id, kind, idempotency_key, metadata, created_at)
          VALUES (${transaction.id}, ${transaction.kind}, ${idempotencyKey}, ${transaction.metadata}::jsonb, ${transaction.created_at}::timestamptz)`,
    );
    for (const entry of entries)
      await executor.execute(
        sql`INSERT INTO ledger_entries (id, transaction_id, account_id, amount)
            VALUES (${BigInt(entry.id)}, ${transaction.id}, ${BigInt(entry.account_id)}, ${BigInt(entry.amount)})`,
      );
  };
}
