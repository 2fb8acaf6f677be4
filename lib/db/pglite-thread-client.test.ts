import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, queryPrepared, queryRows } from "./client";
import { PGliteThreadClient } from "./pglite-thread-client";
import { postgresErrorCode } from "./postgres-error-code";

const probe = sql`select 9007199254740993::bigint as big, '2026-01-02 03:04:05+00'::timestamptz as at,
  ${"it's"}::text as quoted, '\\x0102'::bytea as bytes, null::int as nothing, '{"a":1}'::jsonb as doc`;

describe("PGlite in a worker thread", () => {
  let threaded: DatabaseHandle;
  let inline: DatabaseHandle;

  beforeAll(async () => {
    [threaded, inline] = await Promise.all([
      openDatabase({ dataDir: "memory://", pgliteThread: "worker" }),
      openDatabase({ dataDir: "memory://", pgliteThread: "main" }),
    ]);
    for (const handle of [threaded, inline])
      await handle.db.execute(sql`create table items (id int primary key, label text not null)`);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([threaded?.close(), inline?.close()]);
  });

  it("answers with the same values as PGlite on the request thread", async () => {
    const [fromWorker, fromMain] = await Promise.all([
      queryRows(threaded.db, probe),
      queryRows(inline.db, probe),
    ]);
    expect(fromWorker).toEqual(fromMain);
    expect(fromWorker[0]).toMatchObject({ quoted: "it's", nothing: null });
    const [preparedWorker, preparedMain] = await Promise.all([
      queryPrepared(threaded.db, "probe", sql`select ${"a'b"}::text || ${7}::int as v`),
      queryPrepared(inline.db, "probe", sql`select ${"a'b"}::text || ${7}::int as v`),
    ]);
    expect(preparedWorker).toEqual([{ v: "a'b7" }]);
    expect(preparedWorker).toEqual(preparedMain);
  });

  it("passes the SQLSTATE and constraint of a failed statement", async () => {
    await threaded.db.execute(sql`insert into items values (1, 'one')`);
    const failure = await threaded.db
      .execute(sql`insert into items values (1, 'again')`)
      .catch((error: unknown) => error);
    expect(postgresErrorCode(failure)).toBe("23505");
    expect(JSON.stringify((failure as { cause?: unknown }).cause ?? failure)).toContain("items_pkey");
  });

  it("rolls a transaction back when its callback throws, and commits when it returns", async () => {
    await expect(
      threaded.db.transaction(async (tx) => {
        await tx.execute(sql`insert into items values (2, 'two')`);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    await threaded.db.transaction(async (tx) => {
      await tx.execute(sql`insert into items values (3, 'three')`);
    });
    const rows = await queryRows<{ id: number }>(threaded.db, sql`select id from items order by id`);
    expect(rows.map((row) => row.id)).toEqual([1, 3]);
  });

  it("makes a statement from outside an open transaction wait for its end", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted = () => {};
    const insertedOnce = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const transaction = threaded.db.transaction(async (tx) => {
      await tx.execute(sql`insert into items values (4, 'four')`);
      inserted();
      await held;
      await tx.execute(sql`update items set label = 'FOUR' where id = 4`);
    });
    await insertedOnce;
    const outside = queryRows<{ label: string }>(threaded.db, sql`select label from items where id = 4`);
    release();
    await transaction;
    expect(await outside).toEqual([{ label: "FOUR" }]);
  });

  it("refuses calls after close with a clear error", async () => {
    const handle = await openDatabase({ dataDir: "memory://", pgliteThread: "worker" });
    await handle.close();
    const failure = await queryRows(handle.db, sql`select 1`).catch((error: unknown) => error);
    expect(String((failure as { cause?: Error }).cause?.message)).toMatch(/the PGlite engine is closed/);
  }, 60_000);
});

describe("PGlite in a child process (the set-up engine of a new data directory)", () => {
  it("answers with the same values as a worker thread, and its process is gone after close", async () => {
    const entry = resolve(import.meta.dirname, "pglite-thread-worker.ts");
    const inProcess = new PGliteThreadClient("memory://", entry, "process");
    const inThread = new PGliteThreadClient("memory://", entry, "thread");
    await Promise.all([inProcess.waitReady, inThread.waitReady]);
    const text = "select 9007199254740993::bigint as big, '\\x0102'::bytea as bytes, $1::text as quoted";
    const [fromProcess, fromThread] = await Promise.all([
      inProcess.query(text, ["it's"]),
      inThread.query(text, ["it's"]),
    ]);
    expect(fromProcess.rows).toEqual(fromThread.rows);
    expect(fromProcess.rows[0]).toMatchObject({ big: 9007199254740993n, quoted: "it's" });
    // Our child processes by command name, without the `ps` that lists them.
    const children = () =>
      execFileSync("ps", ["-o", "comm=", "--ppid", String(process.pid)], { encoding: "utf8" })
        .split("\n")
        .filter((name) => name.trim() !== "" && name.trim() !== "ps");
    const before = children().length;
    await Promise.all([inProcess.close(), inThread.close()]);
    expect(children().length).toBeLessThan(before);
    await expect(inProcess.query("select 1")).rejects.toThrow(/closed/);
  }, 60_000);

  it("creates and migrates a new data directory that the serving engine then opens", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "pod-pglite-create-"));
    try {
      const handle = await openDatabase({ dataDir, pgliteThread: "worker" });
      await handle.migrate();
      const tables = await queryRows<{ n: number }>(
        handle.db,
        sql`select count(*)::int as n from information_schema.tables where table_name = 'ledger_entries'`,
      );
      expect(tables).toEqual([{ n: 1 }]);
      await handle.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
