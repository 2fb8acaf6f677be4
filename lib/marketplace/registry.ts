import type { Dialect } from "../dialects/dialect";
import type { DispatchOptions } from "../providers/candidate";
import type { JobSink } from "./job-sink";

/** What a connected provider agent offers for one model, as its capabilities announced it. */
export interface MarketplaceOffer {
  /** The enrolled host's provider id (UUID). */
  providerId: string;
  /** The model id the agent advertises; routing maps it to a canonical id. */
  modelId: string;
  /** The wire format the agent accepts for this model; the proxy translates when it differs. */
  dialect: Dialect;
  inputPer1m: bigint;
  outputPer1m: bigint;
  /** Sold at a fixed price per request (token prices then 0). */
  requestPrice?: bigint | undefined;
  /** Concurrent jobs the agent accepts for this model. */
  maxConcurrent: number;
}

/** How a job reaches one connected agent and how its bytes come back (a WebSocket in production). */
export type AgentTransport = (
  offer: MarketplaceOffer,
  body: string,
  options: DispatchOptions,
) => Promise<Response>;

/**
 * The same, with the bytes fed to `sink` instead of a Response: settles once the agent answered,
 * and fails before that when it cannot (so routing can fail over).
 */
export type AgentSinkTransport = (
  offer: MarketplaceOffer,
  body: string,
  options: DispatchOptions,
  sink: JobSink,
) => Promise<void>;

/** An offer of a live connection, with its capacity right now. */
export interface LiveOffer extends MarketplaceOffer {
  /** Jobs that may still be sent now: the tighter of the model's and the connection's free slots. */
  freeSlots: number;
  /** Throughput the agent last reported (heartbeat), for the public catalogue. */
  tokensPerSecond: number;
  /** The agent software's version as it announced it, for its operator's page. */
  agentVersion?: string;
  /** When this connection registered (ms since the epoch): the agent's uptime on its operator's page. */
  connectedAt?: number;
}

export interface AgentConnectionInput {
  providerId: string;
  offers: Array<Omit<MarketplaceOffer, "providerId">>;
  /** Jobs in flight across all models of this agent; unbounded when absent. */
  maxConcurrentTotal?: number;
  tokensPerSecond?: number;
  /** The agent's version (auth_response), shown to its operator. */
  agentVersion?: string;
  transport: AgentTransport;
  /** Feeds a job's bytes to a sink without a Response (the agent's WebSocket does); `transport` is used without it. */
  sinkTransport?: AgentSinkTransport;
  /** Called when a newer connection of the same provider replaces this one. */
  onReplaced?(): void;
  /** Called when the registry takes the provider out (retirement): the agent should be told and closed. */
  onRemoved?(): void;
}

export interface AgentConnectionHandle {
  /** Marks the connection alive (an agent heartbeat). */
  heartbeat(tokensPerSecond?: number): void;
  disconnect(): void;
}

/** One connected agent, wherever it is connected (the provider page and /health read these). */
export interface ConnectedAgent {
  providerId: string;
  /** The replica holding its WebSocket: "local" for this one, else that replica's name. */
  replica: string;
  connectedAt: Date;
  /** Its last heartbeat. */
  lastSeenAt: Date;
  /** Jobs in flight on it, from every replica. */
  inFlight: number;
  maxConcurrentTotal?: number;
  offers: LiveOffer[];
}

/** What the registry can say about itself for /health and metrics. */
export interface RegistryStatus {
  /** `off`: no REDIS_URL (one process); `up`: shared through Redis; `down`: Redis unreachable, local agents only. */
  redis: "off" | "up" | "down";
  /** Agents whose WebSocket this replica holds. */
  agentsHeld: number;
  /** Agents routable from this replica (its own and, when shared, every other replica's). */
  agentsSeen: number;
  /** Other live replicas this one hears (0 without Redis). */
  peers: number;
}

/**
 * The routing layer's view of marketplace supply, filled from agent WebSockets
 * (capabilities and heartbeats) by lib/marketplace/provider-socket.ts, or with doubles in tests.
 */
export interface MarketplaceRegistry {
  /** Registers an agent; a newer connection of the same provider replaces the older one. */
  connect(input: AgentConnectionInput): AgentConnectionHandle;
  /** Jobs in flight for a provider right now (what retirement waits for). */
  inFlight(providerId: string): number;
  /** Takes a provider's connection out of routing (retirement, suspension). */
  disconnect(providerId: string): void;
  /** Offers of providers with a live connection (a recent heartbeat), with or without free capacity. */
  liveOffers(): LiveOffer[];
  /** The live connected agents, one entry per provider. */
  agents(): ConnectedAgent[];
  status(): RegistryStatus;
  /** Stops sharing (the shared registry leaves the bus); the in-memory one has nothing to stop. */
  close(): Promise<void>;
  /**
   * Carries a request to the provider and its bytes back: the Response is what the agent's
   * backend answered, in the offer's dialect. A slot is held until the body ends or is cancelled.
   */
  dispatch(offer: LiveOffer, body: string, options: DispatchOptions): Promise<Response>;
}
