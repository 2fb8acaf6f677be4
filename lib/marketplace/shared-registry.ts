import { randomUUID } from "node:crypto";
import {
  type AgentEntry,
  type DirectMessage,
  type HealthAttempt,
  type PerformanceSampleMessage,
  parseAgentEntry,
  type SharedMessage,
} from "@pod-gateway/contracts/replica-protocol";
import { log } from "../log";
import type { DispatchOptions } from "../providers/candidate";
import { AgentJobError } from "./agent-jobs";
import { BroadcastBatch } from "./broadcast-batch";
import { CoalescedFlush } from "./coalesced-flush";
import { HostedJobs, type RunLocal } from "./hosted-jobs";
import { InMemoryMarketplaceRegistry } from "./in-memory-registry";
import type {
  AgentConnectionHandle,
  AgentConnectionInput,
  ConnectedAgent,
  LiveOffer,
  MarketplaceRegistry,
  RegistryStatus,
} from "./registry";
import { RemoteJobs } from "./remote-jobs";
import { type BusState, ReplicaBus } from "./replica-bus";

export interface SharedRegistryOptions {
  redisUrl: string;
  /** REDIS_NAMESPACE: the prefix of this deployment's keys and channels. */
  namespace: string;
  /** This process's address on the bus (its instance id). */
  replicaId: string;
  /** The operator's name for it (REPLICA_ID), shown to people. */
  replicaName: string;
  heartbeatTimeoutMs: number;
  /** A replica silent this long is dead: its agents leave routing, jobs through it end. */
  replicaTimeoutMs: number;
}

/** Where provider health is kept: attempts other replicas saw are added to it. */
export interface SharedHealthSink {
  recordShared(providerId: string, attempt: { at: number; ok: boolean; timeToHeadersMs: number }): void;
}

/** One finished attempt of a source at a model, as lib/routing/source-performance.ts keeps it. */
interface SharedSample {
  at: number;
  ok: boolean;
  ttftMs?: number;
  outputTokens: number;
  durationMs: number;
  error?: string;
}

/** Where measured performance is kept: samples other replicas measured are added to it. */
export interface SharedPerformanceSink {
  recordShared(key: string, sample: SharedSample): void;
}

interface HeldAgent {
  connection: string;
  input: AgentConnectionInput;
  handle: AgentConnectionHandle;
  revision: number;
  /** Which of its offers had a free slot in the entry last published ("1"/"0" per offer). */
  availability: string;
}

interface SeenAgent {
  entry: AgentEntry;
  offers: LiveOffer[];
}

/**
 * A slot taken or freed that does not change whether an offer has a free slot is published at
 * most this often: other replicas route on "has a free slot" (the home's count is the
 * reservation), and two broadcasts per job, each read by every replica, were the busiest
 * traffic on the bus and sat on the path of every cross-replica job.
 */
const loadPublishMs = 250;
/**
 * Successful attempts are shared at most this often, in one message: one broadcast per request,
 * heard by every replica (this one included), was bus traffic on the path of every job, and a
 * success only matters to other replicas as a provider's recovery, which takes many of them.
 */
const healthPublishMs = 250;
/** The periodic full read of the agent directory, in beats (repairs messages lost in a Redis blip). */
const syncEveryTicks = 5;
/** Deletes a directory entry only if it is still the given connection's (a newer one may have replaced it). */
const deleteIfConnection = `local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and string.find(v, ARGV[2], 1, true) then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`;

/**
 * The marketplace across replicas, through Redis. Agents connected to this replica are held by
 * an in-memory registry (its capacity count is the one reservation for them: a job from any
 * replica takes a slot here, at the agent's home, so their announced concurrency holds across
 * replicas). Every replica publishes the agents it holds (offers, free slots, heartbeats) in a
 * Redis hash and on the shared channel, and reads everyone else's, so `liveOffers` is every
 * live replica's agents without a Redis round trip. A job for an agent held elsewhere goes to
 * its home on that replica's channel and its bytes come back on ours (remote-jobs.ts,
 * hosted-jobs.ts). When Redis is unreachable, routing sees this replica's agents only, and
 * jobs between replicas end with an error rather than wait.
 */
export class SharedMarketplaceRegistry implements MarketplaceRegistry {
  readonly #options: SharedRegistryOptions;
  readonly #local: InMemoryMarketplaceRegistry;
  readonly #bus: ReplicaBus;
  readonly #remote: RemoteJobs;
  readonly #hosted: HostedJobs;
  readonly #held = new Map<string, HeldAgent>();
  readonly #seen = new Map<string, SeenAgent>();
  readonly #loadChanged = new Set<string>();
  readonly #loadFlush = new CoalescedFlush(() => this.#publishLoad(), loadPublishMs);
  #health: SharedHealthSink | undefined;
  readonly #healthOut = new BroadcastBatch<HealthAttempt>(
    (attempts) => this.#bus.broadcast({ type: "health", replica: this.#options.replicaId, attempts }),
    healthPublishMs,
  );
  #performance: SharedPerformanceSink | undefined;
  readonly #performanceOut = new BroadcastBatch<PerformanceSampleMessage>(
    (samples) => this.#bus.broadcast({ type: "performance", replica: this.#options.replicaId, samples }),
    healthPublishMs,
  );
  #ticks = 0;
  readonly #agentsKey: string;

  constructor(options: SharedRegistryOptions) {
    this.#options = options;
    this.#agentsKey = `${options.namespace}:mkt:agents`;
    this.#local = new InMemoryMarketplaceRegistry({
      heartbeatTimeoutMs: options.heartbeatTimeoutMs,
      onLoadChange: (providerId) => this.#noteLoad(providerId),
    });
    const send = (replica: string, message: DirectMessage) => this.#bus.send(replica, message);
    this.#bus = new ReplicaBus({
      url: options.redisUrl,
      namespace: options.namespace,
      replicaId: options.replicaId,
      name: options.replicaName,
      replicaTimeoutMs: options.replicaTimeoutMs,
      onShared: (message) => this.#onShared(message),
      onDirect: (message) => this.#onDirect(message),
      onStateChange: (state) => this.#onState(state),
      onTick: () => this.#onTick(),
    });
    this.#remote = new RemoteJobs({ self: options.replicaId, send });
    this.#hosted = new HostedJobs(send, this.#runHosted);
  }

  start(): void {
    this.#bus.start();
  }

  connect(input: AgentConnectionInput): AgentConnectionHandle {
    const connection = randomUUID();
    const providerId = input.providerId;
    const handle = this.#local.connect({
      ...input,
      // Another connection of this provider on this replica took over: the new one publishes itself.
      onReplaced: () => {
        if (this.#held.get(providerId)?.connection === connection) this.#held.delete(providerId);
        input.onReplaced?.();
      },
      onRemoved: () => {
        this.#release(providerId, connection);
        input.onRemoved?.();
      },
    });
    this.#held.set(providerId, { connection, input, handle, revision: 0, availability: "" });
    this.#seen.delete(providerId);
    this.#announce(providerId, true).catch(() => undefined);
    return {
      heartbeat: (tokensPerSecond) => {
        handle.heartbeat(tokensPerSecond);
        if (this.#held.get(providerId)?.connection === connection)
          this.#publish(providerId, true).catch(() => undefined);
      },
      disconnect: () => {
        handle.disconnect();
        this.#release(providerId, connection);
      },
    };
  }

  inFlight(providerId: string): number {
    if (this.#held.has(providerId)) return this.#local.inFlight(providerId);
    return this.#seen.get(providerId)?.entry.inFlight ?? 0;
  }

  /** The bus's direct messages published and heard (see ReplicaBus.directCounts). */
  directCounts(): Readonly<{ sent: number; heard: number }> {
    return this.#bus.directCounts;
  }

  disconnect(providerId: string): void {
    if (this.#held.has(providerId)) this.#local.disconnect(providerId);
    this.#seen.delete(providerId);
    this.#bus.broadcast({ type: "remove", providerId });
  }

  liveOffers(): LiveOffer[] {
    const offers = this.#local.liveOffers();
    if (this.#bus.state !== "up") return offers;
    for (const seen of this.#seen.values()) if (this.#routable(seen.entry)) offers.push(...seen.offers);
    return offers;
  }

  agents(): ConnectedAgent[] {
    const agents = this.#local.agents().map((agent) => ({ ...agent, replica: this.#options.replicaName }));
    if (this.#bus.state !== "up") return agents;
    for (const { entry, offers } of this.#seen.values()) {
      if (!this.#routable(entry)) continue;
      agents.push({
        providerId: entry.providerId,
        replica: this.#bus.nameOf(entry.replica),
        connectedAt: new Date(entry.connectedAt),
        lastSeenAt: new Date(entry.seenAt),
        inFlight: entry.inFlight,
        ...(entry.maxConcurrentTotal === undefined ? {} : { maxConcurrentTotal: entry.maxConcurrentTotal }),
        offers,
      });
    }
    return agents;
  }

  status(): RegistryStatus {
    const held = this.#local.agents().length;
    if (this.#bus.state !== "up") return { redis: "down", agentsHeld: held, agentsSeen: held, peers: 0 };
    let seen = held;
    for (const { entry } of this.#seen.values()) if (this.#routable(entry)) seen += 1;
    return { redis: "up", agentsHeld: held, agentsSeen: seen, peers: this.#bus.liveReplicas().length };
  }

  async dispatch(offer: LiveOffer, body: string, options: DispatchOptions): Promise<Response> {
    if (this.#held.has(offer.providerId)) return this.#local.dispatch(offer, body, options);
    const seen = this.#seen.get(offer.providerId);
    if (!seen || this.#bus.state !== "up" || !this.#routable(seen.entry))
      throw new Error("marketplace provider is no longer connected");
    return this.#remote.dispatch(
      {
        replica: seen.entry.replica,
        providerId: offer.providerId,
        connection: seen.entry.connection,
        modelId: offer.modelId,
      },
      body,
      options,
    );
  }

  /** Provider health seen by any replica is kept by all (an upstream demoted on one is demoted on all). */
  shareHealth(
    sink: SharedHealthSink,
  ): (providerId: string, attempt: { at: number; ok: boolean; timeToHeadersMs: number }) => void {
    this.#health = sink;
    return (providerId, attempt) => {
      if (this.#bus.state !== "up") return;
      // A failure may demote the provider: every replica hears it on the next turn of the loop.
      this.#healthOut.add(
        { provider: providerId, ok: attempt.ok, ms: attempt.timeToHeadersMs, at: attempt.at },
        !attempt.ok,
      );
    };
  }

  /** Performance measured by any replica is added up by all, so their figures agree. */
  sharePerformance(sink: SharedPerformanceSink): (key: string, sample: SharedSample) => void {
    this.#performance = sink;
    return (key, sample) => {
      if (this.#bus.state !== "up") return;
      this.#performanceOut.add(
        {
          key,
          at: Math.floor(sample.at),
          ok: sample.ok,
          ...(sample.ttftMs === undefined ? {} : { ttft: Math.min(Math.max(sample.ttftMs, 0), 86_400_000) }),
          tokens: Math.min(Math.max(Math.floor(sample.outputTokens), 0), 10_000_000),
          ms: Math.min(Math.max(sample.durationMs, 0), 86_400_000),
          ...(sample.error === undefined ? {} : { error: sample.error.slice(0, 100) }),
        },
        false,
      );
    };
  }

  async close(): Promise<void> {
    if (this.#bus.state === "up")
      await Promise.all(
        [...this.#held].map(([providerId, held]) =>
          this.#bus
            .commands()
            .eval(deleteIfConnection, { keys: [this.#agentsKey], arguments: [providerId, held.connection] })
            .catch(() => undefined),
        ),
      );
    this.#loadFlush.stop();
    this.#healthOut.stop();
    this.#performanceOut.stop();
    this.#remote.failAll("the gateway replica is shutting down");
    this.#hosted.abortAll();
    await this.#bus.close();
  }

  /** A job another replica sent to an agent this one holds, run through the local registry. */
  readonly #runHosted: RunLocal = async (job, options, sink) => {
    const held = this.#held.get(job.providerId);
    const offer = this.#local.liveOffer(job.providerId, job.modelId);
    if (!held || held.connection !== job.connection || !offer)
      throw new AgentJobError("disconnected", "the agent is no longer connected to that replica");
    return this.#local.dispatchTo(
      offer,
      job.body,
      {
        signal: options.signal,
        forwardHeaders: {},
        onAgentTokens: options.onAgentTokens,
        onAgentAttestation: options.onAgentAttestation,
      },
      sink,
    );
  };

  #routable(entry: AgentEntry): boolean {
    return (
      !this.#held.has(entry.providerId) &&
      this.#bus.isLive(entry.replica) &&
      Date.now() - entry.seenAt < this.#options.heartbeatTimeoutMs
    );
  }

  #entry(providerId: string, held: HeldAgent): AgentEntry | undefined {
    const agent = this.#local.agent(providerId);
    if (!agent) return undefined;
    held.revision += 1;
    held.availability = availabilityOf(agent.offers);
    return {
      providerId,
      replica: this.#options.replicaId,
      connection: held.connection,
      offers: agent.offers.map((offer) => ({
        modelId: offer.modelId,
        dialect: offer.dialect,
        inputPer1m: offer.inputPer1m.toString(),
        outputPer1m: offer.outputPer1m.toString(),
        ...(offer.requestPrice === undefined ? {} : { requestPrice: offer.requestPrice.toString() }),
        maxConcurrent: offer.maxConcurrent,
        freeSlots: offer.freeSlots,
      })),
      ...(agent.maxConcurrentTotal === undefined ? {} : { maxConcurrentTotal: agent.maxConcurrentTotal }),
      inFlight: agent.inFlight,
      tokensPerSecond: agent.offers[0]?.tokensPerSecond ?? 0,
      ...(agent.offers[0]?.agentVersion === undefined ? {} : { agentVersion: agent.offers[0].agentVersion }),
      connectedAt: agent.connectedAt.getTime(),
      seenAt: agent.lastSeenAt.getTime(),
      revision: held.revision,
    };
  }

  /** Tells every replica about an agent this one holds; `persist` also writes the directory. */
  async #publish(providerId: string, persist: boolean): Promise<void> {
    const held = this.#held.get(providerId);
    if (!held || this.#bus.state !== "up") return;
    const entry = this.#entry(providerId, held);
    if (!entry) return;
    this.#bus.broadcast({ type: "agent", entry });
    if (persist) await this.#bus.commands().hSet(this.#agentsKey, providerId, JSON.stringify(entry));
  }

  /** A newly held agent: publish it, and close an older connection of it on another replica. */
  async #announce(providerId: string, persist: boolean): Promise<void> {
    const held = this.#held.get(providerId);
    if (!held || this.#bus.state !== "up") return;
    const previous = await this.#bus.commands().hGet(this.#agentsKey, providerId);
    const before = previous ? parseAgentEntry(previous) : undefined;
    if (before && before.replica !== this.#options.replicaId && before.connection !== held.connection)
      await this.#bus.send(before.replica, {
        type: "replaced",
        providerId,
        connection: before.connection,
      });
    await this.#publish(providerId, persist);
  }

  /** An agent this replica held is gone: out of the directory, and every replica is told. */
  #release(providerId: string, connection: string): void {
    if (this.#held.get(providerId)?.connection !== connection) return;
    this.#held.delete(providerId);
    if (this.#bus.state !== "up") return;
    this.#bus.broadcast({ type: "agent_gone", providerId, connection });
    this.#bus
      .commands()
      .eval(deleteIfConnection, { keys: [this.#agentsKey], arguments: [providerId, connection] })
      .catch(() => undefined);
  }

  /**
   * A slot was taken or freed. An offer that became full (or free again) is published on the
   * next turn of the loop, so other replicas stop (or start) sending it jobs; any other change
   * of the count waits for the next publication, at most `loadPublishMs` away.
   */
  #noteLoad(providerId: string): void {
    if (this.#bus.state !== "up") return;
    this.#loadChanged.add(providerId);
    const held = this.#held.get(providerId);
    const agent = held ? this.#local.agent(providerId) : undefined;
    if (held && agent && availabilityOf(agent.offers) !== held.availability) {
      this.#loadFlush.soon();
      return;
    }
    this.#loadFlush.later();
  }

  #publishLoad(): void {
    for (const changed of this.#loadChanged) this.#publish(changed, false).catch(() => undefined);
    this.#loadChanged.clear();
  }

  #see(entry: AgentEntry): void {
    if (entry.replica === this.#options.replicaId || this.#held.has(entry.providerId)) return;
    const current = this.#seen.get(entry.providerId)?.entry;
    const newer =
      !current ||
      (current.connection === entry.connection
        ? entry.revision > current.revision
        : entry.connectedAt >= current.connectedAt || !this.#bus.isLive(current.replica));
    if (!newer) return;
    this.#seen.set(entry.providerId, {
      entry,
      offers: entry.offers.map((offer) => ({
        providerId: entry.providerId,
        modelId: offer.modelId,
        dialect: offer.dialect,
        inputPer1m: BigInt(offer.inputPer1m),
        outputPer1m: BigInt(offer.outputPer1m),
        ...(offer.requestPrice === undefined ? {} : { requestPrice: BigInt(offer.requestPrice) }),
        maxConcurrent: offer.maxConcurrent,
        freeSlots: offer.freeSlots,
        tokensPerSecond: entry.tokensPerSecond,
        ...(entry.agentVersion === undefined ? {} : { agentVersion: entry.agentVersion }),
        connectedAt: entry.connectedAt,
      })),
    });
  }

  #onShared(message: SharedMessage): void {
    switch (message.type) {
      case "agent":
        this.#see(message.entry);
        return;
      case "agent_gone":
        if (this.#seen.get(message.providerId)?.entry.connection === message.connection)
          this.#seen.delete(message.providerId);
        return;
      case "remove":
        if (this.#held.has(message.providerId)) this.#local.disconnect(message.providerId);
        this.#seen.delete(message.providerId);
        return;
      case "health":
        if (message.replica === this.#options.replicaId) return;
        for (const attempt of message.attempts)
          this.#health?.recordShared(attempt.provider, {
            at: attempt.at,
            ok: attempt.ok,
            timeToHeadersMs: attempt.ms,
          });
        return;
      case "performance":
        if (message.replica === this.#options.replicaId) return;
        for (const sample of message.samples)
          this.#performance?.recordShared(sample.key, {
            at: sample.at,
            ok: sample.ok,
            ...(sample.ttft === undefined ? {} : { ttftMs: sample.ttft }),
            outputTokens: sample.tokens,
            durationMs: sample.ms,
            ...(sample.error === undefined ? {} : { error: sample.error }),
          });
        return;
      case "leaving":
        this.#dropReplica(message.replica, "the replica holding the agent shut down");
        return;
      case "beat":
        return;
    }
  }

  #onDirect(message: DirectMessage): void {
    switch (message.type) {
      case "job":
        this.#hosted.start(message);
        return;
      case "cancel":
        this.#hosted.cancel(message.job);
        return;
      case "ack":
        this.#hosted.ack(message.job, message.bytes);
        return;
      case "start":
      case "chunk":
      case "end":
      case "fail":
        this.#remote.receive(message);
        return;
      case "replaced": {
        const held = this.#held.get(message.providerId);
        if (held?.connection !== message.connection) return;
        this.#held.delete(message.providerId);
        held.handle.disconnect();
        held.input.onReplaced?.();
        return;
      }
    }
  }

  #onState(state: BusState): void {
    if (state === "down") {
      this.#remote.failAll("the marketplace's Redis became unreachable mid-job");
      this.#hosted.abortAll();
      return;
    }
    // Back (or up for the first time): say again which agents this replica holds, read everyone's.
    for (const providerId of this.#held.keys()) this.#announce(providerId, true).catch(() => undefined);
    this.#sync().catch((error: unknown) => log.warn("marketplace directory sync failed", { error }));
  }

  #onTick(): void {
    const isLive = (replica: string) => this.#bus.isLive(replica);
    this.#remote.failUnless(isLive, "the replica holding the agent stopped answering");
    this.#hosted.abortUnless(isLive);
    this.#ticks += 1;
    if (this.#ticks % syncEveryTicks === 0 && this.#bus.state === "up")
      this.#sync().catch((error: unknown) => log.warn("marketplace directory sync failed", { error }));
  }

  #dropReplica(replica: string, reason: string): void {
    this.#bus.forget(replica);
    this.#remote.failUnless((home) => home !== replica, reason);
    this.#hosted.abortUnless((caller) => caller !== replica);
    for (const [providerId, seen] of this.#seen)
      if (seen.entry.replica === replica) this.#seen.delete(providerId);
  }

  /** Reads the whole directory: learns agents whose messages were missed, forgets and prunes the dead. */
  async #sync(): Promise<void> {
    const all = await this.#bus.commands().hGetAll(this.#agentsKey);
    const entries = new Map<string, { entry: AgentEntry; raw: string }>();
    for (const [providerId, raw] of Object.entries(all)) {
      const entry = parseAgentEntry(raw);
      if (entry) entries.set(providerId, { entry, raw });
    }
    await this.#bus.learnPresence([...new Set([...entries.values()].map(({ entry }) => entry.replica))]);
    for (const [providerId, { entry }] of entries) {
      if (entry.replica === this.#options.replicaId) continue;
      if (!this.#bus.isLive(entry.replica)) {
        // A dead replica's agents: whoever sees them first deletes them (only if still that connection).
        await this.#bus
          .commands()
          .eval(deleteIfConnection, { keys: [this.#agentsKey], arguments: [providerId, entry.connection] });
        continue;
      }
      this.#see(entry);
    }
    for (const providerId of this.#seen.keys()) if (!entries.has(providerId)) this.#seen.delete(providerId);
  }
}

/** "1" or "0" per offer: whether it has a free slot (what other replicas route on). */
function availabilityOf(offers: readonly { freeSlots: number }[]): string {
  return offers.map((offer) => (offer.freeSlots > 0 ? "1" : "0")).join("");
}
