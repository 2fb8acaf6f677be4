import { bigserial, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { hosts } from "./hosts";

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
    hostId: uuid("host_id")
      .notNull()
      .references(() => hosts.id),
    /** over_claim | invalid_claim | over_limit | protocol_violation | canary_pass | canary_fail */
    kind: text("kind").notNull(),
    /** The request (or canary job) it was seen on, when there is one. */
    requestId: text("request_id"),
    /** In words, as the host and the operator read it. */
    detail: text("detail").notNull(),
    evidence: jsonb("evidence").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("host_trust_events_host_idx").on(table.hostId, table.createdAt)],
);

export type HostTrustEvent = typeof hostTrustEvents.$inferSelect;
