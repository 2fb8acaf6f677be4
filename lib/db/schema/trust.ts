import { bigint, bigserial, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, randomId } from "./columns";
import { hostRef } from "./owners";

/**
 * What the gateway observed about a host's honesty, one row per observation: metering
 * findings (a claim beyond the tolerance, a refused figure, output past the forwarded limit),
 * protocol violations of its agent, and canary verdicts. Reputation (lib/trust) is computed
 * from these rows, so every replica sees the same standing.
 */
export const hostTrustEvents = pgTable(
  "host_trust_events",
  {
    id: bigserial("id", { mode: "bigint" }).primaryKey(),
    hostId: hostRef(),
    /** over_claim | invalid_claim | over_limit | protocol_violation | canary_pass | canary_fail */
    kind: text("kind").notNull(),
    /** The request (or canary job) it was seen on, when there is one. */
    requestId: text("request_id"),
    /** In words, as the host and the operator read it. */
    detail: text("detail").notNull(),
    evidence: jsonb("evidence").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (table) => [index("host_trust_events_host_idx").on(table.hostId, table.createdAt)],
);

export type HostTrustEvent = typeof hostTrustEvents.$inferSelect;

/**
 * A slash: a host's immature earnings and bond taken into the refund pool and paid back to the
 * callers it served in the maturity window, pro rata to what they paid it. The ledger holds the
 * movements (kinds host_slash, host_slash_refund, host_slash_remainder); this row holds the case.
 */
export const hostSlashes = pgTable(
  "host_slashes",
  {
    id: randomId(),
    hostId: hostRef(),
    /** admin | automatic */
    trigger: text("trigger").notNull(),
    reason: text("reason").notNull(),
    evidence: jsonb("evidence").$type<Record<string, unknown>>().notNull().default({}),
    earningsMicrounits: bigint("earnings_microunits", { mode: "bigint" }).notNull(),
    bondMicrounits: bigint("bond_microunits", { mode: "bigint" }).notNull(),
    refundedMicrounits: bigint("refunded_microunits", { mode: "bigint" }).notNull(),
    /** What no caller was owed (the pool beyond what they paid): to the treasury. */
    remainderMicrounits: bigint("remainder_microunits", { mode: "bigint" }).notNull(),
    callersRefunded: integer("callers_refunded").notNull(),
    createdAt: createdAt(),
  },
  (table) => [index("host_slashes_host_idx").on(table.hostId)],
);

export type HostSlash = typeof hostSlashes.$inferSelect;
