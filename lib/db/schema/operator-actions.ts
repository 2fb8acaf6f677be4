import { bigserial, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

/**
 * The operator's audit log: one row per action taken with the admin token (a host suspended,
 * activated or slashed, a payout approved, a credit, a catalog refresh), naming who did it (the
 * console's signed-in operator, or what an API caller said in `x-pod-operator`). Catalog edits
 * are logged in `catalog_changes`; the money itself moves in the ledger.
 */
export const operatorActions = pgTable(
  "operator_actions",
  {
    id: bigserial("id", { mode: "bigint" }).primaryKey(),
    operator: text("operator").notNull(),
    /** host_suspend | host_activate | host_slash | payout_approve | credit | catalog_refresh */
    action: text("action").notNull(),
    /** What it was done to: a provider id, a payout id, a ledger account, the catalog. */
    subject: text("subject").notNull(),
    detail: jsonb("detail").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (table) => [index("operator_actions_created_idx").on(table.createdAt)],
);
