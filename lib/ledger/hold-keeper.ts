import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "../db/client";
import { queryRows } from "../db/client";
import { newId } from "../ids";
import { log } from "../log";
import { releaseHold } from "./holds";
import { recoverInstance } from "./replay-journals";

/**
 * Owns the holds of this process. Every hold it places carries the process's instance id;
 * while a request runs its hold's expiry is pushed forward, so the TTL sweeper never takes
 * the hold of a request that is still alive, however long it runs.
 *
 * A process that dies leaves holds behind. On Postgres each instance keeps a session-level
 * advisory lock for its lifetime: the lock vanishes with the dead connection, so any other
 * process (or the next start) can tell a dead instance from a live one at once, and only
 * a dead one's holds are released. PGlite is a single-process database: at start, every
 * hold owned by an earlier instance is dead.
 */
export class HoldKeeper {
  readonly instanceId = newId("gw");
  readonly #database: DatabaseHandle;
  readonly #ttlSeconds: number;
  readonly #live = new Set<string>();
  /** Dead instances whose journals could not be written yet: their holds stay until they are. */
  readonly #unrecovered = new Set<string>();
  #session: Awaited<ReturnType<NonNullable<DatabaseHandle["session"]>>> | undefined;
  #timer: NodeJS.Timeout | undefined;

  readonly #deadCheckMs: number;
  #deadTimer: NodeJS.Timeout | undefined;

  /**
   * `deadCheckMs`: how often this process looks for dead instances on a shared database,
   * bills what they journaled and releases their holds (the bound on how long a dead
   * replica's balance stays held, after its connection is gone).
   */
  constructor(database: DatabaseHandle, ttlSeconds: number, deadCheckMs = 10_000) {
    this.#database = database;
    this.#ttlSeconds = ttlSeconds;
    this.#deadCheckMs = deadCheckMs;
  }

  /**
   * Registers this instance (and its liveness lock), lets `recover` finish what dead instances
   * left (their journals), then releases their holds.
   */
  async start(
    recover?: (isDead: (instanceId: string) => Promise<boolean>) => Promise<string[]>,
  ): Promise<number> {
    const db = this.#database.db;
    await db.execute(sql`INSERT INTO gateway_instances (id) VALUES (${this.instanceId})`);
    if (this.#database.session) {
      this.#session = await this.#database.session();
      await this.#session.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [this.instanceId]);
    }
    for (const kept of (await recover?.((instanceId) => this.#isDead(instanceId))) ?? [])
      this.#unrecovered.add(kept);
    const released = await this.releaseDeadInstances();
    const intervalMs = Math.max(1_000, Math.min(60_000, (this.#ttlSeconds * 1_000) / 3));
    this.#timer = setInterval(() => {
      this.keepAlive().catch((error: unknown) => log.error("hold keep-alive failed", { error }));
    }, intervalMs);
    this.#timer.unref();
    if (this.#session) {
      this.#deadTimer = setInterval(() => {
        this.releaseDeadInstances().catch((error: unknown) =>
          log.error("recovering dead instances failed", { error }),
        );
      }, this.#deadCheckMs);
      this.#deadTimer.unref();
    }
    return released;
  }

  /** A hold placed for a request of this process (tagged with the instance if not yet). */
  async adopt(holdId: string): Promise<void> {
    this.#live.add(holdId);
    await this.#database.db.execute(
      sql`UPDATE holds SET owner = ${this.instanceId} WHERE id = ${holdId} AND owner IS NULL`,
    );
  }

  /** Marks a hold placed with `owner: instanceId` as belonging to a running request. */
  track(holdId: string): void {
    this.#live.add(holdId);
  }

  /** The request settled or failed: its hold is gone and needs no keep-alive. */
  forget(holdId: string): void {
    this.#live.delete(holdId);
  }

  /** Releases a hold without charging and stops keeping it. */
  async release(holdId: string): Promise<void> {
    this.forget(holdId);
    await releaseHold(this.#database.db, holdId);
  }

  get liveHolds(): number {
    return this.#live.size;
  }

  /** Pushes the expiry of every running request's hold forward and refreshes the heartbeat. */
  async keepAlive(): Promise<void> {
    const db = this.#database.db;
    await db.execute(sql`UPDATE gateway_instances SET heartbeat_at = now() WHERE id = ${this.instanceId}`);
    if (this.#live.size === 0) return;
    const ids = [...this.#live];
    await db.execute(
      sql`UPDATE holds SET expires_at = now() + make_interval(secs => ${this.#ttlSeconds})
          WHERE id IN (${sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          )})`,
    );
  }

  /**
   * For each instance that is no longer running: bills what it journaled in the database, then
   * releases its holds (never before: a lease released unbilled would be spent twice). Returns
   * how many holds. Its liveness lock, taken by `#isDead`, keeps other survivors off it meanwhile.
   */
  async releaseDeadInstances(): Promise<number> {
    const db = this.#database.db;
    const others = await queryRows<{ id: string }>(
      db,
      sql`SELECT id FROM gateway_instances WHERE id <> ${this.instanceId}`,
    );
    let released = 0;
    for (const { id } of others) {
      if (this.#unrecovered.has(id) || !(await this.#isDead(id))) continue;
      if (!(await recoverInstance(db, id).catch(() => false))) {
        log.error("a dead instance's journal could not be billed yet; its holds stay", { instance: id });
        await this.#session?.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [id]);
        continue;
      }
      released += await releaseHoldsOf(this.#database, id);
      await db.execute(sql`DELETE FROM gateway_instances WHERE id = ${id}`);
      await this.#session?.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [id]);
    }
    return released;
  }

  async #isDead(instanceId: string): Promise<boolean> {
    if (!this.#session) return true; // PGlite: one process, and it is this one
    const rows = await this.#session.query("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS free", [
      instanceId,
    ]);
    return rows[0]?.free === true;
  }

  /**
   * Clean shutdown: nothing in flight is kept alive; the lock goes, and the instance row too
   * unless `unwritten` settlements remain in its journal: then the row stays, so its holds are
   * released only after whoever recovers it has replayed that journal.
   */
  async stop(unwritten = false): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#deadTimer) clearInterval(this.#deadTimer);
    this.#timer = undefined;
    this.#deadTimer = undefined;
    if (!unwritten)
      await this.#database.db
        .execute(sql`DELETE FROM gateway_instances WHERE id = ${this.instanceId}`)
        .catch(() => undefined);
    this.#session?.release();
    this.#session = undefined;
  }
}

/** Releases every hold of one (dead) instance, returning how many there were. */
async function releaseHoldsOf(database: DatabaseHandle, instanceId: string): Promise<number> {
  return database.db.transaction(async (transaction) => {
    const released = await queryRows<{ account_id: string | bigint; amount: string | bigint }>(
      transaction,
      sql`DELETE FROM holds WHERE owner = ${instanceId} RETURNING account_id, amount`,
    );
    const perAccount = new Map<bigint, bigint>();
    for (const row of released) {
      const accountId = BigInt(row.account_id);
      perAccount.set(accountId, (perAccount.get(accountId) ?? 0n) + BigInt(row.amount));
    }
    for (const [accountId, amount] of perAccount)
      await transaction.execute(sql`UPDATE accounts SET held = held - ${amount} WHERE id = ${accountId}`);
    return released.length;
  });
}
