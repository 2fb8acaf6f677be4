import { type ReplicaSignal, replicaSignalSchema } from "@pod-gateway/contracts/replica-protocol";
import { createClient } from "@redis/client";
import { log } from "../log";

/** What a replica publishes: its own id is added. */
type OutgoingSignal = ReplicaSignal extends infer Signal
  ? Signal extends ReplicaSignal
    ? Omit<Signal, "from">
    : never
  : never;

export interface ReplicaSignals {
  /** Resolves once Redis has passed it to the subscribers (or gave up: it never rejects). */
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
  onSignal(signal: ReplicaSignal): void;
}

/** A publish never waits on Redis longer than this (the cache's own expiry is the fallback). */
const commandTimeoutMs = 1_000;
/** How long a start waits for Redis before going on without it. */
const connectWaitMs = 2_000;

/**
 * The replicas' signal channel through the Redis they share: a replica that changes state every
 * replica caches (a key revoked, a price edited) says so, and the others drop their copy on the
 * message, within a pub/sub hop, instead of when their copy expires. Fire and forget: Redis down
 * loses signals, and each cache's own expiry (a key's second, the catalog's poll) still bounds
 * how long a stale copy lives.
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
  const listen = (message: string) => {
    let parsed: ReturnType<typeof replicaSignalSchema.safeParse>;
    try {
      parsed = replicaSignalSchema.safeParse(JSON.parse(message));
    } catch {
      return;
    }
    if (!parsed.success || parsed.data.from === options.replicaId) return;
    options.onSignal(parsed.data);
  };
  const started = Promise.all([
    publisher.connect(),
    subscriber.connect().then(() => subscriber.subscribe(channel, listen)),
  ]).then(
    () => true,
    (error: unknown) => {
      log.warn("replica signals: Redis unreachable at start; caches expire on their own until it answers", {
        error,
      });
      return false;
    },
  );
  let waited: NodeJS.Timeout | undefined;
  await Promise.race([
    started,
    new Promise<void>((resolve) => {
      waited = setTimeout(resolve, connectWaitMs);
    }),
  ]);
  clearTimeout(waited);
  const commands = publisher.withCommandOptions({ timeout: commandTimeoutMs });
  return {
    async publish(signal) {
      const message = JSON.stringify({ ...signal, from: options.replicaId });
      await commands
        .publish(channel, message)
        .then(() => undefined)
        .catch((error: unknown) =>
          log.warn("publishing a replica signal failed", { error, type: signal.type }),
        );
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
