import { sql } from "drizzle-orm";
import { check, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { randomId } from "./columns";

/**
 * A supply-side operator (provider). The id is the provider id callers see in
 * `X-Pod-Provider-Id` and may pin with `X-Pod-Providers`. Only the sha256 of the host token
 * is stored: the token is the operator's credential for `/v1/host/...`.
 */
export const hosts = pgTable(
  "hosts",
  {
    id: randomId(),
    displayName: text("display_name").notNull(),
    /** Payout wallet (Solana address) for cashouts. */
    wallet: text("wallet").notNull(),
    contactEmail: text("contact_email"),
    hostTokenHash: text("host_token_hash").notNull().unique(),
    /** `POD-ENROLL-XXXXXXXX`: pairs a provider agent with this host. */
    enrollmentCode: text("enrollment_code").notNull().unique(),
    /** `POD-BOND-XXXXXXXX`: routes the 50 USDC bond deposit to this host. */
    bondDepositCode: text("bond_deposit_code").notNull().unique(),
    /** pending (bond not seen) | active (routable) | suspended | retiring (draining) | retired */
    status: text("status").notNull().default("pending"),
    /** The provider agent's Ed25519 public key (base64), bound at its first connection with the enrollment code. */
    agentPubkey: text("agent_pubkey").unique(),
    /**
     * When the gateway last heard the host's agent (its connection, a heartbeat, its goodbye),
     * written at most every half minute: the provider page's "last seen" once the agent is gone.
     */
    agentLastSeenAt: timestamp("agent_last_seen_at", { withTimezone: true }),
    /** Earliest enrolment wins price ties. */
    enrolledAt: timestamp("enrolled_at", { withTimezone: true }).notNull().defaultNow(),
    activatedAt: timestamp("activated_at", { withTimezone: true }),
    retiredAt: timestamp("retired_at", { withTimezone: true }),
    /** End of the post-retirement cooldown: the bond is returned once it has passed. */
    bondReturnAfter: timestamp("bond_return_after", { withTimezone: true }),
    bondReturnedAt: timestamp("bond_returned_at", { withTimezone: true }),
  },
  (table) => [
    check(
      "hosts_status_known",
      sql`${table.status} IN ('pending', 'active', 'suspended', 'retiring', 'retired')`,
    ),
  ],
);

export type Host = typeof hosts.$inferSelect;
