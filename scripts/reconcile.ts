// `npm run reconcile`: matches the ledger of DATABASE_URL (or the embedded PGlite under
// POD_DATA_DIR) against Stripe and the chains; prints the report, exits 1 on any difference and
// 2 when a source could not be read (named in the report's `unreadable`).
import { createAppContext } from "../compose-app";
import { loadEnv } from "../lib/env";
import { reconcileExitCode, reportJson } from "../lib/reconcile/core/reconcile-report";
import { reconcile } from "../lib/reconcile/reconcile";

const app = await createAppContext({ env: loadEnv(), sweeper: false });
try {
  const report = await reconcile(app);
  process.stdout.write(`${JSON.stringify(reportJson(report), null, 2)}\n`);
  process.exitCode = reconcileExitCode(report);
} finally {
  await app.close();
}
