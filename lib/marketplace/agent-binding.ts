import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "../db/client";
import { hosts } from "../db/schema";

export type AgentBinding =
  | { type: "bound"; providerId: string; status: string }
  | { type: "refused"; reason: string };

/**
 * The host an agent key speaks for. A key seen before maps to its host; a new key is bound
 * to the host whose enrollment code it presents, once: a code already bound to another key
 * cannot be taken over by whoever learns it.
 */
export async function bindAgent(
  executor: Executor,
  pubkey: string,
  enrollmentCode: string | undefined,
): Promise<AgentBinding> {
  const known = await executor
    .select({ id: hosts.id, status: hosts.status })
    .from(hosts)
    .where(eq(hosts.agentPubkey, pubkey));
  let host = known[0];
  if (!host) {
    if (!enrollmentCode) {
      return { type: "refused", reason: "unknown agent key: enroll first (send your POD-ENROLL code)" };
    }
    const bound = await executor
      .update(hosts)
      .set({ agentPubkey: pubkey })
      .where(and(eq(hosts.enrollmentCode, enrollmentCode.trim().toUpperCase()), isNull(hosts.agentPubkey)))
      .returning({ id: hosts.id, status: hosts.status });
    host = bound[0];
    if (!host) {
      return {
        type: "refused",
        reason: "unknown enrollment code, or it is already bound to another agent key",
      };
    }
  }
  if (host.status === "retired" || host.status === "retiring") {
    return { type: "refused", reason: `host ${host.id} is ${host.status}` };
  }
  return { type: "bound", providerId: host.id, status: host.status };
}
