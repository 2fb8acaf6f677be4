// Applies the drizzle migrations to DATABASE_URL (or the embedded PGlite under POD_DATA_DIR).
import { openDatabase } from "../lib/db/client";
import { loadEnv } from "../lib/env";

const env = loadEnv();
const database = await openDatabase({ url: env.DATABASE_URL, dataDir: env.POD_DATA_DIR });
await database.migrate();
await database.close();
console.log(`migrations applied (${database.kind})`);
