import { log } from "../log";
import type { Reputation } from "../providers/host-standing";
import { findHosts } from "../providers/host-status";
import { loadReputations, refreshReputations } from "./reputation";
import { slashHost } from "./slash-host";
import { recordTrustEvents, type TrustEventInput } from "./trust-events";
import type { TrustServices } from "./trust-services";

/**
 * Slashes a host whose record proves it serves another model (TRUST_AUTO_SLASH, on by default).
 * Once is enough: a slashed host is suspended, and an operator's suspension is theirs to act on.
 */
async function slashIfProven(app: TrustServices, hostId: string, standing: Reputation): Promise<void> {
  if (!standing.proven || !app.env.TRUST_AUTO_SLASH) return;
  if ((await findHosts(app.database.db, [hostId])).get(hostId)?.status === "suspended") return;
  await slashHost(
    app,
    {
      hostId,
      trigger: "automatic",
      reason: standing.reasons.join("; "),
      evidence: { counts: standing.counts },
    },
    { unlessSuspended: true },
  ).catch((error: unknown) => log.error("automatic slash failed", { provider: hostId, error }));
}

/**
 * Records what was observed about a host by a canary or its agent's connection, re-reads its
 * standing at once (so this process's routing acts on it), and slashes it when proven.
 * Findings on a paid request go to the services' `trustFindings` sink instead, which the request
 * does not wait on.
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
    await refreshReputations(reputation, app.database.db, [hostId]);
  } catch (error) {
    log.error("could not refresh a host's reputation", { provider: hostId, error });
    return;
  }
  await slashIfProven(app, hostId, reputation.of(hostId));
}

/**
 * The upkeep's trust pass: every host's standing re-read (replicas agree within a pass), and
 * every host the record proves a cheat slashed, whichever process or request filed the evidence.
 */
export async function upkeepTrust(app: TrustServices): Promise<void> {
  const loaded = await loadReputations(app.database.db);
  app.routing.reputation.apply(loaded);
  for (const [hostId, standing] of loaded) await slashIfProven(app, hostId, standing);
}
