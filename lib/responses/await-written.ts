import { setTimeout as sleep } from "node:timers/promises";
import { responseIdSecond } from "../dialects/translate/responses/new-item-id";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import type { Services } from "../services";
import type { ResponseStoreServices } from "./pending-stores";

/**
 * The pauses between looks for a response another replica may still be writing: 500 ms in all
 * (REPLICA_WAIT_MS in the docs). Its INSERT follows its answer by milliseconds; a write slower
 * than this is a database in trouble, and the caller gets the 404 it would get for any unknown id.
 */
const replicaRetryMs = [20, 40, 60, 80, 100, 200];

/** How far from now an id's creation second may be and the response still be on its way (clocks of replicas differ). */
const recentSeconds = 60;

/**
 * How many requests of this process may be looking again at once. Anyone can make up a recent id,
 * so without a bound each made-up id would hold a request and seven queries for 500 ms; past it an
 * unknown id is a 404 at once (a real follow-up on another replica is rarely this crowded).
 */
const maxLookingAgain = 32;
let lookingAgain = 0;

function mayBeInFlight(id: string): boolean {
  const second = responseIdSecond(id);
  return second !== undefined && Math.abs(Date.now() / 1000 - second) <= recentSeconds;
}

/**
 * `attempt` (a lookup or a delete of response `id`) once the response has been written, if it
 * is being written: in this process, after its pending INSERT; on another replica sharing
 * Postgres (nothing pending here, the id made in the last minute), looked for again for up to
 * 500 ms. Undefined when it is still not there. On PGlite there is no other replica to wait for.
 */
export async function awaitWritten<T>(
  app: Pick<Services, "env"> & ResponseStoreServices,
  id: string,
  attempt: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const pendingHere = app.pendingResponses.settled(id);
  if (pendingHere) {
    await pendingHere;
    const found = await attempt();
    gatewayMetrics.storedResponseWaits.inc({
      where: "here",
      outcome: found === undefined ? "not_found" : "found",
    });
    return found;
  }
  const found = await attempt();
  if (found !== undefined || app.env.DATABASE_URL === undefined || !mayBeInFlight(id)) return found;
  if (lookingAgain >= maxLookingAgain) {
    gatewayMetrics.storedResponseWaits.inc({ where: "replica", outcome: "crowded" });
    return undefined;
  }
  lookingAgain += 1;
  try {
    for (const pause of replicaRetryMs) {
      await sleep(pause);
      const later = await attempt();
      if (later !== undefined) {
        gatewayMetrics.storedResponseWaits.inc({ where: "replica", outcome: "found" });
        return later;
      }
    }
  } finally {
    lookingAgain -= 1;
  }
  gatewayMetrics.storedResponseWaits.inc({ where: "replica", outcome: "not_found" });
  return undefined;
}
