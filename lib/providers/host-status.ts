import { eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { hosts } from "../db/schema";

const hostStatuses = ["pending", "active", "suspended", "retiring", "retired"] as const;
export type HostStatus = (typeof hostStatuses)[number];

/** Sets a host's status; returns false when no such host exists. */
export async function setHostStatus(
  executor: Executor,
  providerId: string,
  status: HostStatus,
): Promise<boolean> {
  const updated = await executor
    .update(hosts)
    .set({
      status,
      ...(status === "active" ? { activatedAt: sql`COALESCE(${hosts.activatedAt}, now())` } : {}),
    })
    .where(eq(hosts.id, providerId))
    .returning({ id: hosts.id });
  return updated.length > 0;
}

export interface HostSummary {
  id: string;
  status: string;
  enrolledAt: Date;
}

/** The enrolled hosts among `ids` (any status): what makes a pinned provider id known. */
export async function findHosts(
  executor: Executor,
  ids: readonly string[],
): Promise<Map<string, HostSummary>> {
  if (ids.length === 0) return new Map();
  const rows = await executor
    .select({ id: hosts.id, status: hosts.status, enrolledAt: hosts.enrolledAt })
    .from(hosts)
    .where(inArray(hosts.id, [...ids]));
  return new Map(rows.map((row) => [row.id, row]));
}

export interface ActiveHost {
  id: string;
  displayName: string;
  enrolledAt: Date;
}

/** Routable hosts, earliest enrolment first. */
export async function listActiveHosts(executor: Executor): Promise<ActiveHost[]> {
  return executor
    .select({ id: hosts.id, displayName: hosts.displayName, enrolledAt: hosts.enrolledAt })
    .from(hosts)
    .where(eq(hosts.status, "active"))
    .orderBy(hosts.enrolledAt);
}
