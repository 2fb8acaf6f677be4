import { tmpdir } from "node:os";
import path from "node:path";
import type { DatabaseHandle } from "../db/client";
import type { Env } from "../env";
import type { JournalClaim } from "./settlement-journal";

export interface JournalLocation {
  directory: string;
  claim: JournalClaim;
}

/**
 * Where this process's file journal lives and which files there it may bill, or undefined for
 * a database that dies with the process (nothing could ever replay into it). The folder defaults
 * to `<POD_DATA_DIR>/journal`; a Postgres gateway whose POD_DATA_DIR names no folder (`memory://`,
 * as the tests run it) keeps the journal it falls back to under the system's temporary folder.
 * Files carry their database's id wherever they are, so a shared folder is safe.
 */
export function journalLocation(
  env: Pick<Env, "BILLING_JOURNAL_DIR" | "POD_DATA_DIR">,
  database: Pick<DatabaseHandle, "kind" | "volatile">,
  ids: { instanceId: string; databaseId: string },
): JournalLocation | undefined {
  if (database.volatile) return undefined;
  const claim = { ownInstanceId: ids.instanceId, databaseId: ids.databaseId, unnamed: false };
  if (env.BILLING_JOURNAL_DIR) return { directory: env.BILLING_JOURNAL_DIR, claim };
  if (database.kind === "pglite")
    // Only this database's processes ever wrote inside its data directory, so journals from
    // before files were named by database are its own too.
    return { directory: path.join(env.POD_DATA_DIR, "journal"), claim: { ...claim, unnamed: true } };
  const base = env.POD_DATA_DIR.startsWith("memory://")
    ? path.join(tmpdir(), "pod-gateway")
    : env.POD_DATA_DIR;
  return { directory: path.join(base, "journal"), claim };
}
