import { findHosts } from "../hosts/host-status";
import { log } from "../log";
import { slashHost } from "./slash-host";
import { recordTrustEvents, type TrustEventInput } from "./trust-events";
import type { TrustServices } from "./trust-services";

/**
 * Records what was observed about a host, re-reads its standing at once (so this process's
 * routing acts on it), and slashes the host automatically when the evidence proves it serves
 * another model (TRUST_AUTO_SLASH, on by default).
 */
export async function noteTrustEvents(
  app: TrustServices,
  hostId: string,
  events: readonly TrustEventInput[],
): Promise<void> {
  if (events.length === 0) return;
  await recordTrustEvents(app.database.db, hostId, events);
  const { reputation } = app.routing;
  try {
    await reputation.refresh(app.database.db, [hostId]);
  } catch (error) {
    log.error("could not refresh a host's reputation", { provider: hostId, error });
    return;
  }
  const standing = reputation.of(hostId);
  if (!standing.proven || !app.env.TRUST_AUTO_SLASH) return;
  // Once is enough: a slashed host is suspended, and an operator's suspension is theirs to act on.
  if ((await findHosts(app.database.db, [hostId])).get(hostId)?.status === "suspended") return;
  await slashHost(app, {
    hostId,
    trigger: "automatic",
    reason: standing.reasons.join("; "),
    evidence: { counts: standing.counts },
  }).catch((error: unknown) => log.error("automatic slash failed", { provider: hostId, error }));
}
