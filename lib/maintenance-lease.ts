import { sql } from "drizzle-orm";
import { type Executor, queryRows } from "./db/client";

/**
 * A time-bound lease in `maintenance_leases`: the one way replicas sharing a database agree
 * that only one of them runs a job at a time. Taking it succeeds when nobody holds it, when
 * the holder's lease has run out (a crashed replica), or when the caller already holds it
 * (renewal). It works the same on Postgres and PGlite.
 */
export async function acquireLease(
  executor: Executor,
  name: string,
  holder: string,
  ttlSeconds: number,
): Promise<boolean> {
  const rows = await queryRows<{ holder: string }>(
    executor,
    sql`INSERT INTO maintenance_leases (name, holder, expires_at)
        VALUES (${name}, ${holder}, now() + make_interval(secs => ${ttlSeconds}))
        ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
        WHERE maintenance_leases.holder = EXCLUDED.holder OR maintenance_leases.expires_at < now()
        RETURNING holder`,
  );
  return rows.length > 0;
}

/** Gives the lease up at once (only the holder can), so the next run of any replica may take it. */
export async function releaseLease(executor: Executor, name: string, holder: string): Promise<void> {
  await executor.execute(sql`DELETE FROM maintenance_leases WHERE name = ${name} AND holder = ${holder}`);
}
