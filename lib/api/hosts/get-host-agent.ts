import type { HostAgent } from "@pod-gateway/contracts/host-api";
import { jsonResponse } from "../../http/responses";
import { hostTransactions } from "../../payouts/core/host-earnings";
import { lastBrokenJob } from "../../trust/trust-view";
import type { ApiCall } from "../route-definition";

/** A broken job older than this no longer makes a connected agent read "stalled". */
const stalledWindowMs = 3_600_000;

/**
 * GET /v1/host/agent – the host's agent as routing sees it (the marketplace registry's live
 * offers, whichever registry this gateway runs): its live state (connected, stalled, offline),
 * when it was last heard (its last heartbeat; the host row's record once it is gone), its
 * version, since when it is connected, its throughput, and per model the price and the slots
 * free right now. `connected` is false when no agent of this host has a live heartbeat.
 */
export async function getHostAgent({ app, principal: host }: ApiCall<"host">): Promise<Response> {
  const { registry } = app.routing;
  const offers = registry.liveOffers().filter((offer) => offer.providerId === host.id);
  const first = offers[0];
  const live = registry.agents().find((agent) => agent.providerId === host.id);
  const lastSeen = live?.lastSeenAt ?? host.agentLastSeenAt;
  let stalled: HostAgent["stalled"] = null;
  if (first !== undefined) {
    // Stalled: its newest broken job is newer than its newest credited job.
    const broken = await lastBrokenJob(app.database.db, host.id, stalledWindowMs);
    if (broken) {
      const [credit] = (await hostTransactions(app.database.db, host.id, { limit: 5 })).filter(
        (row) => row.amount > 0n,
      );
      if (!credit || credit.createdAt < broken.createdAt)
        stalled = { since: broken.createdAt.toISOString(), kind: broken.kind, detail: broken.detail };
    }
  }
  return jsonResponse(
    {
      connected: first !== undefined,
      state: first === undefined ? "offline" : stalled ? "stalled" : "connected",
      last_seen_at: lastSeen ? lastSeen.toISOString() : null,
      stalled,
      agent_version: first?.agentVersion ?? null,
      connected_at: first?.connectedAt === undefined ? null : new Date(first.connectedAt).toISOString(),
      tokens_per_second: first?.tokensPerSecond ?? 0,
      models: offers.map((offer) => ({
        model: offer.modelId,
        format: offer.dialect,
        input_per_1m: Number(offer.inputPer1m),
        output_per_1m: Number(offer.outputPer1m),
        max_concurrent: offer.maxConcurrent,
        free_slots: offer.freeSlots,
      })),
    } satisfies HostAgent,
    200,
    { "cache-control": "no-store" },
  );
}
