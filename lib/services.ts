import type { DatabaseHandle } from "./db/client";
import type { Env } from "./env";

/**
 * The two services every feature may take: the validated settings and the database. A
 * feature that needs more declares its own slice beside its code (`LedgerServices`,
 * `RoutingServices`, …) and asks for `Services & Slice`, the members it reads and no more;
 * the composition root (`compose-app.ts`) builds one object that has them all. This file
 * imports no feature, so any floor may name it.
 */
export interface Services {
  env: Env;
  database: DatabaseHandle;
}
