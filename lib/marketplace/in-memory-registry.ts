import type { AbortHandle } from "../light-abort";
import type { DispatchOptions } from "../providers/candidate";
import { feedResponse, type JobFeed, type JobSink } from "./job-sink";
import type {
  AgentConnectionHandle,
  AgentConnectionInput,
  ConnectedAgent,
  LiveOffer,
  MarketplaceRegistry,
  RegistryStatus,
} from "./registry";

export type { AgentConnectionHandle, AgentConnectionInput } from "./registry";

interface Connection {
  input: AgentConnectionInput;
  connectedAt: number;
  lastSeen: number;
  tokensPerSecond: number;
  inFlightTotal: number;
  inFlight: Map<string, number>;
  open: boolean;
}

/** Agents heartbeat every 15 s; three missed beats and the connection is no longer live. */
const defaultHeartbeatTimeoutMs = 45_000;

/**
 * One process's marketplace supply: live agent connections, their offers and in-flight
 * jobs. Capacity is counted here so routing only offers a job to an agent with a free slot.
 */
export class InMemoryMarketplaceRegistry implements MarketplaceRegistry {
  readonly #connections = new Map<string, Connection>();
  readonly #now: () => number;
  readonly #heartbeatTimeoutMs: number;
  readonly #onLoadChange: ((providerId: string) => void) | undefined;

  constructor(
    options: {
      now?: () => number;
      heartbeatTimeoutMs?: number;
      /** A job of this provider took or freed a slot (the shared registry tells the other replicas). */
      onLoadChange?(providerId: string): void;
    } = {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? defaultHeartbeatTimeoutMs;
    this.#onLoadChange = options.onLoadChange;
  }

  /** Registers an agent (replacing an earlier connection of the same provider, as a reconnect does). */
  connect(input: AgentConnectionInput): AgentConnectionHandle {
    const connection: Connection = {
      input,
      connectedAt: this.#now(),
      lastSeen: this.#now(),
      tokensPerSecond: input.tokensPerSecond ?? 0,
      inFlightTotal: 0,
      inFlight: new Map(),
      open: true,
    };
    const previous = this.#connections.get(input.providerId);
    this.#close(input.providerId);
    this.#connections.set(input.providerId, connection);
    previous?.input.onReplaced?.();
    return {
      heartbeat: (tokensPerSecond) => {
        connection.lastSeen = this.#now();
        if (tokensPerSecond !== undefined) connection.tokensPerSecond = tokensPerSecond;
      },
      disconnect: () => {
        if (this.#connections.get(input.providerId) === connection) this.#close(input.providerId);
      },
    };
  }

  inFlight(providerId: string): number {
    return this.#connections.get(providerId)?.inFlightTotal ?? 0;
  }

  disconnect(providerId: string): void {
    const connection = this.#connections.get(providerId);
    this.#close(providerId);
    connection?.input.onRemoved?.();
  }

  agents(): ConnectedAgent[] {
    const agents: ConnectedAgent[] = [];
    for (const connection of this.#connections.values()) {
      const agent = this.#connected(connection);
      if (agent) agents.push(agent);
    }
    return agents;
  }

  /** One provider's live agent, if it has one (what a job's bookkeeping reads, without listing all). */
  agent(providerId: string): ConnectedAgent | undefined {
    const connection = this.#connections.get(providerId);
    return connection ? this.#connected(connection) : undefined;
  }

  /** The live offer of one provider for one model, with its capacity now. */
  liveOffer(providerId: string, modelId: string): LiveOffer | undefined {
    const connection = this.#connections.get(providerId);
    if (!connection || !this.#isLive(connection)) return undefined;
    return this.#offersOf(connection).find((offer) => offer.modelId === modelId);
  }

  #isLive(connection: Connection): boolean {
    return connection.open && connection.lastSeen >= this.#now() - this.#heartbeatTimeoutMs;
  }

  #connected(connection: Connection): ConnectedAgent | undefined {
    if (!this.#isLive(connection)) return undefined;
    return {
      providerId: connection.input.providerId,
      replica: "local",
      connectedAt: new Date(connection.connectedAt),
      lastSeenAt: new Date(connection.lastSeen),
      inFlight: connection.inFlightTotal,
      ...(connection.input.maxConcurrentTotal === undefined
        ? {}
        : { maxConcurrentTotal: connection.input.maxConcurrentTotal }),
      offers: this.#offersOf(connection),
    };
  }

  status(): RegistryStatus {
    const held = this.agents().length;
    return { redis: "off", agentsHeld: held, agentsSeen: held, peers: 0 };
  }

  async close(): Promise<void> {}

  liveOffers(): LiveOffer[] {
    const offers: LiveOffer[] = [];
    for (const connection of this.#connections.values())
      if (this.#isLive(connection)) offers.push(...this.#offersOf(connection));
    return offers;
  }

  #offersOf(connection: Connection): LiveOffer[] {
    const totalFree =
      connection.input.maxConcurrentTotal === undefined
        ? Number.POSITIVE_INFINITY
        : connection.input.maxConcurrentTotal - connection.inFlightTotal;
    return connection.input.offers.map((offer) => ({
      ...offer,
      providerId: connection.input.providerId,
      freeSlots: Math.max(
        0,
        Math.min(offer.maxConcurrent - (connection.inFlight.get(offer.modelId) ?? 0), totalFree),
      ),
      tokensPerSecond: connection.tokensPerSecond,
      ...(connection.input.agentVersion === undefined ? {} : { agentVersion: connection.input.agentVersion }),
      connectedAt: connection.connectedAt,
    }));
  }

  async dispatch(offer: LiveOffer, body: string, options: DispatchOptions): Promise<Response> {
    const { connection, release } = this.#reserve(offer, options.signal);
    try {
      const response = await connection.input.transport(offer, body, options);
      return releaseWhenDone(response, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * The same job with its bytes fed to `sink` (a job another replica asked for): settles once
   * the agent answered; the slot is held until the feed ends.
   */
  async dispatchTo(offer: LiveOffer, body: string, options: DispatchOptions, sink: JobSink): Promise<void> {
    const { connection, release } = this.#reserve(offer, options.signal);
    const releasing: JobSink = {
      open: (status, contentType, pull) => releaseOnEnd(sink.open(status, contentType, pull), release),
    };
    try {
      const { sinkTransport, transport } = connection.input;
      if (sinkTransport) await sinkTransport(offer, body, options, releasing);
      else {
        const response = await transport(offer, body, options);
        feedResponse(response, releasing, options.signal).catch(release);
      }
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Takes a slot of a live offer with room, freed at the latest when the job's request is aborted. */
  #reserve(offer: LiveOffer, signal: AbortHandle): { connection: Connection; release: () => void } {
    const connection = this.#connections.get(offer.providerId);
    const live = this.liveOffer(offer.providerId, offer.modelId);
    if (!connection || !live) throw new Error("marketplace provider is no longer connected");
    if (live.freeSlots < 1) throw new Error("marketplace provider has no free capacity");
    const release = this.#acquire(connection, offer.modelId);
    // Whatever happens to the body (read to its end, abandoned, errored), the slot is freed
    // once the job's request is aborted: a relay that gives up on an agent aborts it.
    signal.addEventListener("abort", release, { once: true });
    return { connection, release };
  }

  #acquire(connection: Connection, modelId: string): () => void {
    connection.inFlightTotal += 1;
    connection.inFlight.set(modelId, (connection.inFlight.get(modelId) ?? 0) + 1);
    this.#onLoadChange?.(connection.input.providerId);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      connection.inFlightTotal -= 1;
      connection.inFlight.set(modelId, (connection.inFlight.get(modelId) ?? 1) - 1);
      this.#onLoadChange?.(connection.input.providerId);
    };
  }

  #close(providerId: string): void {
    const connection = this.#connections.get(providerId);
    if (connection) connection.open = false;
    this.#connections.delete(providerId);
  }
}

/** Frees the slot when the feed ends, well or not. */
function releaseOnEnd(feed: JobFeed, release: () => void): JobFeed {
  return {
    enqueue: (chunk) => feed.enqueue(chunk),
    close: () => {
      release();
      feed.close();
    },
    error: (reason) => {
      release();
      feed.error(reason);
    },
    get desiredSize() {
      return feed.desiredSize;
    },
  };
}

/** Frees the slot once the body is fully read, fails, or is cancelled by the reader. */
function releaseWhenDone(response: Response, release: () => void): Response {
  if (!response.body) {
    release();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    async cancel(reason) {
      release();
      await reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
