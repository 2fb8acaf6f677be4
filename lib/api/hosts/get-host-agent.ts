import type { HostAgent } from "@pod-gateway/contracts/host-api";
import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";

/**
 * GET /v1/host/agent – the host's connected agent as routing sees it (the marketplace
 * registry's live offers, whichever registry this gateway runs): its version, since when it is
 * connected, its throughput, and per model the price and the slots free right now. `connected`
 * is false when no agent of this host has a live heartbeat.
 */
export async function getHostAgent({ app, principal: host }: ApiCall<"host">): Promise<Response> {
  const offers = app.routing.registry.liveOffers().filter((offer) => offer.providerId === host.id);
  const first = offers[0];
  return jsonResponse(
    {
      connected: first !== undefined,
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
