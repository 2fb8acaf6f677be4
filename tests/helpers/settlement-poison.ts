import { sql } from "drizzle-orm";
import type { Executor } from "../../lib/db/client";

/**
 * Makes the database refuse the usage record of chosen requests, as it would a value it cannot
 * store: a trigger raises numeric_value_out_of_range (22003) for every request id in
 * `poisoned_requests`, whichever statement writes it.
 */
export async function installSettlementPoison(executor: Executor): Promise<void> {
  await executor.execute(sql`CREATE TABLE IF NOT EXISTS poisoned_requests (request_id text PRIMARY KEY)`);
  await executor.execute(
    sql.raw(`CREATE OR REPLACE FUNCTION refuse_poisoned_settlement() RETURNS trigger AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM poisoned_requests WHERE request_id = NEW.request_id) THEN
          RAISE EXCEPTION 'poisoned settlement %', NEW.request_id USING ERRCODE = '22003';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`),
  );
  await executor.execute(sql`DROP TRIGGER IF EXISTS refuse_poisoned_settlement ON usage_records`);
  await executor.execute(
    sql`CREATE TRIGGER refuse_poisoned_settlement BEFORE INSERT ON usage_records
        FOR EACH ROW EXECUTE FUNCTION refuse_poisoned_settlement()`,
  );
}

export async function poisonRequest(executor: Executor, requestId: string): Promise<void> {
  await executor.execute(sql`INSERT INTO poisoned_requests (request_id) VALUES (${requestId})`);
}
