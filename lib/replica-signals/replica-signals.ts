import { randomBytes } from "node:crypto";
import { type ReplicaSignal, replicaSignalSchema } from "@pod-gateway/contracts/replica-protocol";
import { createClient } from "@redis/client";
import { log } from "../log";
import { settledWithin } from "../settled-within";

/** A change another replica announced (not a reply to one). */
export type ChangeSignal = Exclude<ReplicaSignal, { type: "heard" }>;

/** What a replica publishes: its own id and the signal's id are added. */
type OutgoingSignal = ChangeSignal extends infer Signal
  ? Signal extends ChangeSignal
    ? Omit<Signal, "from" | "id">
    : never
  : never;

export interface ReplicaSignals {
  /**
   * Resolves once every other replica subscribed has acted on it (said "heard"), or after
   * `heardWaitMs`, or when Redis failed: it never rejects.
   */
  publish(signal: OutgoingSignal): Promise<void>;
  close(): Promise<void>;
}

export interface ReplicaSignalsOptions {
  url: string;
  /** REDIS_NAMESPACE: one deployment's replicas share one channel. */
  namespace: string;
  /** This process's id: its own signals, heard back, are skipped. */
  replicaId: string;
  /** Another replica's signal, parsed. */
  onSignal(signal: ChangeSignal): void;
}

/** A publish never waits on Redis longer than this (the cache's own expiry is the fallback). */
const commandTimeoutMs = 1_000;
/** How long a publish waits for the other replicas' "heard" (one stuck or old replica costs this). */
const heardWaitMs = 1_000;
/** How long a start waits for Redis before going on without it. */
const connectWaitMs = 2_000;

/**
 * The replicas' signal channel through the Redis they share: a replica that changes state every
 * replica caches (a key revoked, a price edited) says so, and the others drop their copy on the
 * message and answer "heard". The change's own request is answered once every other replica has
 * heard (PUBLISH counts the subscribers it reached), so a request sent to any replica after that
 * answer sees the change: Redis passing a message on is not a replica having read it, and a
 * request can reach the other replica in the same turn of its event loop as the signal. Bounded:
 * Redis down loses signals, a replica that does not answer costs `heardWaitMs`, and each cache's
 * own expiry (a key's second, the catalog's poll) still bounds how long a stale copy lives.
 */
export async function connectReplicaSignals(options: ReplicaSignalsOptions): Promise<ReplicaSignals> {
  const channel = `${options.namespace}:signals`;
  const publisher = createClient({
    url: options.url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: commandTimeoutMs,
      reconnectStrategy: (retries) => Math.min(retries * 200, 5_000),
    },
  });
  const subscriber = publisher.duplicate();
  for (const client of [publisher, subscriber])
    client.on("error", (error: unknown) => log.warn("redis error (replica signals)", { error }));
  const commands = publisher.withCommandOptions({ timeout: commandTimeoutMs });
  /** This process's signals awaiting "heard", by id: each call counts its sender's reply. */
  const awaiting = new Map<string, (from: string) => void>();
  let subscribed = false;
  const listen = (message: string) => {
    let parsed: ReturnType<typeof replicaSignalSchema.safeParse>;
    try {
      parsed = replicaSignalSchema.safeParse(JSON.parse(message));
    } catch {
      return;
    }
    if (!parsed.success || parsed.data.from === options.replicaId) return;
    const signal = parsed.data;
    if (signal.type === "heard") {
      awaiting.get(signal.id)?.(signal.from);
      return;
    }
    options.onSignal(signal);
    if (signal.id === undefined) return;
    commands
      .publish(channel, JSON.stringify({ type: "heard", from: options.replicaId, id: signal.id }))
      .catch((error: unknown) => log.warn("answering a replica signal failed", { error }));
  };
  const started = Promise.all([
    publisher.connect(),
    subscriber
      .connect()
      .then(() => subscriber.subscribe(channel, listen))
      .then(() => {
        subscribed = true;
      }),
  ]).then(
    () => true,
    (error: unknown) => {
      log.warn("replica signals: Redis unreachable at start; caches expire on their own until it answers", {
        error,
      });
      return false;
    },
  );
  await settledWithin(started, connectWaitMs);
  return {
    async publish(signal) {
      const id = randomBytes(8).toString("hex");
      // Replicas, not messages: a replica that answers twice (or a replay of its answer) counts once.
      const heardFrom = new Set<string>();
      let expected = Number.POSITIVE_INFINITY;
      let allHeard: () => void = () => undefined;
      const everyone = new Promise<void>((resolve) => {
        allHeard = resolve;
      });
      awaiting.set(id, (from) => {
        heardFrom.add(from);
        if (heardFrom.size >= expected) allHeard();
      });
      try {
        const receivers = await commands.publish(
          channel,
          JSON.stringify({ ...signal, from: options.replicaId, id }),
        );
        // This process's own subscriber is one of the receivers; it does not answer itself.
        expected = receivers - (subscribed ? 1 : 0);
        if (heardFrom.size >= expected) return;
        if (!(await settledWithin(everyone, heardWaitMs)))
          log.warn("a replica signal was not heard by every replica in time", {
            type: signal.type,
            heard: heardFrom.size,
            expected,
          });
      } catch (error) {
        log.warn("publishing a replica signal failed", { error, type: signal.type });
      } finally {
        awaiting.delete(id);
      }
    },
    async close() {
      // A client still connecting or reconnecting is destroyed: closing would wait for Redis.
      for (const client of [subscriber, publisher]) {
        if (client.isReady) await client.close().catch(() => client.destroy());
        else if (client.isOpen) client.destroy();
      }
      await started;
    },
  };
}
