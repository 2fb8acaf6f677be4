import {
  type DirectMessage,
  parseDirectMessage,
  parseSharedMessage,
  type SharedMessage,
} from "@pod-gateway/contracts/replica-protocol";
import { createClient } from "@redis/client";
import { log } from "../log";
import { PublishLine } from "./publish-line";

/** `up`: messages flow between replicas; `down`: Redis is unreachable, each replica is on its own. */
export type BusState = "up" | "down";

export interface ReplicaBusOptions {
  url: string;
  /** Prefix of every key and channel (REDIS_NAMESPACE): one per deployment sharing a Redis. */
  namespace: string;
  /** This process's address on the bus (its instance id: a restart is a new replica). */
  replicaId: string;
  /** The operator's name for this replica (REPLICA_ID), shown in /health. */
  name: string;
  /** A replica whose beat has not been heard for this long is dead. */
  replicaTimeoutMs: number;
  onShared(message: SharedMessage): void;
  onDirect(message: DirectMessage): void;
  onStateChange(state: BusState): void;
  /** Every beat (a third of the timeout): time for the owner's own liveness checks. */
  onTick(): void;
}

/** Own shared messages remembered until heard back (more are only a Redis blip's losses). */
const maxEchoes = 1_000;
/** Commands wait at most this for Redis: a replica never hangs on an unreachable one. */
const commandTimeoutMs = 1_000;

type Client = ReturnType<typeof createClient>;

/**
 * The replicas' shared line through Redis pub/sub: one channel every replica listens to, and one
 * per replica. It beats (a presence key with a time to live, and a beat message) so each replica
 * knows which others are alive, and says when Redis is unreachable, so the marketplace can fall
 * back to the agents this replica holds. Commands fail fast while Redis is away (no offline queue,
 * a timeout on every command): nothing waits on it. Messages go out on the publish line
 * (publish-line.ts) while it is up, and through node-redis otherwise.
 */
export class ReplicaBus {
  readonly replicaId: string;
  readonly #options: ReplicaBusOptions;
  readonly #publisher: Client;
  readonly #subscriber: Client;
  /** The publisher with a timeout on every command. */
  readonly #commands: Client;
  readonly #beats = new Map<string, number>();
  readonly #names = new Map<string, string>();
  #state: BusState = "down";
  #beatOk = false;
  /** Beats in a row that Redis did not take in time: one late beat on a busy machine is not an outage. */
  #beatFailures = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /**
   * Shared messages this replica published and has not heard back yet: every subscriber hears
   * its own, and they need no parsing (a bounded set: one lost in a Redis blip is forgotten).
   */
  readonly #echoes = new Set<string>();
  readonly #sharedChannel: string;
  readonly #prefix: string;
  readonly #line: PublishLine;
  /**
   * Messages on their way through node-redis. The line is used only when none are: a message
   * Redis has answered was passed on before the answer, so what goes on the line next cannot
   * overtake an earlier one, a job's bytes or an agent's entry (the line writes at once,
   * node-redis on the next turn).
   */
  #publishing = 0;
  /**
   * Direct messages published and heard: replicas whose counts add up have nothing on its way
   * to each other, which is how one knows a job's flow between them has settled without
   * waiting an arbitrary time.
   */
  readonly #directCounts = { sent: 0, heard: 0 };

  constructor(options: ReplicaBusOptions) {
    this.#options = options;
    this.replicaId = options.replicaId;
    this.#prefix = `${options.namespace}:mkt`;
    this.#sharedChannel = `${this.#prefix}:shared`;
    const clientOptions = {
      url: options.url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: commandTimeoutMs,
        reconnectStrategy: (retries: number) => Math.min(100 + retries * 200, 2_000),
      },
    };
    this.#publisher = createClient(clientOptions);
    this.#subscriber = createClient(clientOptions);
    this.#commands = this.#publisher.withCommandOptions({ timeout: commandTimeoutMs }) as unknown as Client;
    this.#line = new PublishLine(options.url, `pod-line-${options.replicaId}`);
    for (const client of [this.#publisher, this.#subscriber]) {
      client.on("error", () => this.#update());
      client.on("end", () => this.#update());
      client.on("reconnecting", () => this.#update());
      client.on("ready", () => this.#update());
    }
  }

  get state(): BusState {
    return this.#state;
  }

  /** Connects in the background (a replica starts, and serves its own agents, while Redis is away). */
  start(): void {
    const connect = async () => {
      await Promise.all([this.#publisher.connect(), this.#subscriber.connect()]);
      await this.#subscriber.subscribe(this.#sharedChannel, (text) => this.#shared(text));
      await this.#subscriber.subscribe(this.#directChannel(this.replicaId), (text) => this.#direct(text));
      await this.#beat();
    };
    this.#line.start();
    connect().catch((error: unknown) => {
      if (!this.#closed)
        log.warn("marketplace bus: Redis unreachable at start; serving this replica's agents only", {
          error,
        });
    });
    const interval = Math.max(100, Math.floor(this.#options.replicaTimeoutMs / 3));
    this.#timer = setInterval(() => {
      this.#beat().catch(() => undefined);
      // After the loop's poll phase: beats that arrived while this process was busy are read
      // first, so a late timer does not take live replicas for dead ones.
      setImmediate(() => this.#options.onTick());
    }, interval);
    this.#timer.unref();
  }

  /** Whether `replicaId` beat recently (this replica always is). */
  isLive(replicaId: string): boolean {
    if (replicaId === this.replicaId) return true;
    const last = this.#beats.get(replicaId);
    return last !== undefined && Date.now() - last < this.#options.replicaTimeoutMs;
  }

  /** Other replicas heard beating recently. */
  liveReplicas(): string[] {
    return [...this.#beats.keys()].filter((id) => this.isLive(id));
  }

  /** A replica's operator-given name, from its beats (its id until one is heard). */
  nameOf(replicaId: string): string {
    return replicaId === this.replicaId ? this.#options.name : (this.#names.get(replicaId) ?? replicaId);
  }

  /** Direct messages this replica has published and heard so far (a copy). */
  get directCounts(): Readonly<{ sent: number; heard: number }> {
    return { ...this.#directCounts };
  }

  /** Sends to one replica; false when it is not listening (dead) or Redis is away. */
  send(replicaId: string, message: DirectMessage): Promise<boolean> {
    if (this.#state !== "up") return Promise.resolve(false);
    this.#directCounts.sent += 1;
    return new Promise<boolean>((resolve) =>
      this.#publish(this.#directChannel(replicaId), JSON.stringify(message), (receivers) =>
        resolve(receivers !== undefined && receivers > 0),
      ),
    );
  }

  /** Tells every replica (itself included); lost when Redis is away, which the periodic sync repairs. */
  broadcast(message: SharedMessage): void {
    if (this.#state !== "up") return;
    const text = JSON.stringify(message);
    if (this.#echoes.size >= maxEchoes) this.#echoes.clear();
    this.#echoes.add(text);
    this.#publish(this.#sharedChannel, text, (receivers) => {
      if (receivers === undefined) this.#echoes.delete(text);
    });
  }

  /**
   * On the line while it is up and nothing is on its way through node-redis, else through
   * node-redis; `onReply` gets the receiver count, or undefined when delivery is not known.
   */
  #publish(channel: string, text: string, onReply: (receivers: number | undefined) => void): void {
    if (this.#publishing === 0 && this.#line.publish(channel, text, onReply)) return;
    this.#publishing += 1;
    this.#command()
      .publish(channel, text)
      .then(onReply, () => onReply(undefined))
      .finally(() => {
        this.#publishing -= 1;
      });
  }

  /** The bounded-time command client, for the owner's own keys. */
  commands(): Client {
    return this.#command();
  }

  /** Marks replicas whose presence key is still there as alive (a replica that just started heard no beat yet). */
  async learnPresence(replicaIds: string[]): Promise<void> {
    const unknown = replicaIds.filter((id) => !this.#beats.has(id) && id !== this.replicaId);
    if (unknown.length === 0) return;
    const present = await this.#command().mGet(unknown.map((id) => this.#presenceKey(id)));
    const now = Date.now();
    unknown.forEach((id, index) => {
      if (present[index] !== null) this.#beats.set(id, now);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#line.close();
    if (this.#state === "up") {
      await this.#command()
        .publish(this.#sharedChannel, JSON.stringify({ type: "leaving", replica: this.replicaId }))
        .catch(() => undefined);
      await this.#command()
        .del(this.#presenceKey(this.replicaId))
        .catch(() => undefined);
    }
    for (const client of [this.#publisher, this.#subscriber]) {
      // A client still connecting or reconnecting is destroyed: closing would wait for Redis.
      if (!client.isOpen) continue;
      if (client.isReady) await client.close().catch(() => client.destroy());
      else client.destroy();
    }
  }

  /** A replica said it is leaving, or its beats stopped: forget it at once. */
  forget(replicaId: string): void {
    this.#beats.delete(replicaId);
  }

  #directChannel(replicaId: string): string {
    return `${this.#prefix}:r:${replicaId}`;
  }

  #presenceKey(replicaId: string): string {
    return `${this.#prefix}:replica:${replicaId}`;
  }

  #command(): Client {
    return this.#commands;
  }

  async #beat(): Promise<void> {
    if (this.#closed) return;
    if (!this.#publisher.isReady) {
      this.#beatOk = false;
      this.#update();
      return;
    }
    try {
      const beat = JSON.stringify({ type: "beat", replica: this.replicaId, name: this.#options.name });
      await this.#command()
        .multi()
        .set(this.#presenceKey(this.replicaId), this.#options.name, { PX: this.#options.replicaTimeoutMs })
        .publish(this.#sharedChannel, beat)
        .exec();
      this.#beatOk = true;
      this.#beatFailures = 0;
    } catch {
      // A closed connection is seen at once (isReady); a slow one only after two beats in a row.
      this.#beatFailures += 1;
      if (this.#beatFailures >= 2) this.#beatOk = false;
    }
    this.#update();
  }

  #update(): void {
    const up = !this.#closed && this.#beatOk && this.#publisher.isReady && this.#subscriber.isReady;
    const state: BusState = up ? "up" : "down";
    if (state === this.#state) return;
    this.#state = state;
    if (state === "down") {
      this.#beatOk = false;
      this.#beats.clear();
      if (!this.#closed)
        log.warn("marketplace bus down: Redis unreachable; serving this replica's agents only");
    } else {
      log.info("marketplace bus up: agents of every replica are routable", { replica: this.#options.name });
    }
    this.#options.onStateChange(state);
  }

  #shared(text: string): void {
    if (this.#echoes.delete(text)) return;
    const message = parseSharedMessage(text);
    if (!message) return;
    if (message.type === "beat") {
      if (message.replica === this.replicaId) return;
      this.#beats.set(message.replica, Date.now());
      this.#names.set(message.replica, message.name);
      return;
    }
    if (message.type === "leaving") this.#beats.delete(message.replica);
    this.#options.onShared(message);
  }

  #direct(text: string): void {
    this.#directCounts.heard += 1;
    const message = parseDirectMessage(text);
    if (message) this.#options.onDirect(message);
  }
}
