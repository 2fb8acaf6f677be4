import { readFileSync } from "node:fs";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";

/**
 * How the embedded PGlite runs. Postgres' default shared_buffers (128 MB) is sized for a server
 * with a page cache of its own beside it; inside PGlite it took the process from about 300 MB
 * to 600 to 700 MB resident (measured: an in-memory PGlite with 20,000 rows, idle). 16 MB holds
 * the gateway's hot rows (tokens, balances, holds, the catalog); the rest is read through the
 * operating system's file cache, as with any Postgres. `template`: a dumped data directory
 * (`dumpDataDir`) an in-memory database starts from instead of running initdb, which takes
 * seconds of WebAssembly per database (the tests open one per gateway).
 */
export function pgliteOptions(template?: string): PGliteOptions {
  return {
    startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
    ...(template ? { loadDataDir: new Blob([readFileSync(template)]) } : {}),
  };
}
