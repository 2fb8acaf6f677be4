import type { DispatchOptions } from "../routing/candidate";
import type { MarketplaceOffer } from "./registry";

/** How a job reaches one connected agent and how its bytes come back (a WebSocket in production). */
export type AgentTransport = (
  offer: MarketplaceOffer,
  body: string,
  options: DispatchOptions,
) => Promise<Response>;
