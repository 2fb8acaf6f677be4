import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { writePgliteTemplate } from "../../lib/db/client";

declare module "vitest" {
  export interface ProvidedContext {
    /** A migrated in-memory database's dump that test gateways start from (PGLITE_MEMORY_TEMPLATE). */
    pgliteTemplate: string;
  }
}

const root = path.resolve(import.meta.dirname, "../..");

/** Named by what it is made of: the migrations and the PGlite that ran them. */
function templateKey(): string {
  const hash = createHash("sha256");
  const migrations = path.join(root, "drizzle");
  for (const name of readdirSync(migrations)
    .filter((file) => file.endsWith(".sql"))
    .sort())
    hash.update(name).update(readFileSync(path.join(migrations, name)));
  hash.update(readFileSync(path.join(root, "node_modules/@electric-sql/pglite/package.json")));
  return hash.digest("hex").slice(0, 16);
}

/**
 * Vitest global setup: makes (once, then reused while the migrations are unchanged) the data
 * directory in-memory test gateways start from, so each skips initdb and the migrations.
 */
export default async function setup(project: TestProject): Promise<void> {
  const folder = path.join(root, "node_modules/.cache/pod-gateway");
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `pglite-template-${templateKey()}.tar`);
  if (!existsSync(file)) await writePgliteTemplate(file);
  project.provide("pgliteTemplate", file);
}
