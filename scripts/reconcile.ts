// `npm run reconcile`: matches the ledger of DATABASE_URL (or the embedded PGlite under
// POD_DATA_DIR) against Stripe and the chains; prints the report, exits 1 on any difference.
import { createAppContext } from "../compose-app";
import { loadEnv } from "../lib/env";
import { reportJson } from "../lib/reconcile/core/reconcile-report";
import { reconcile } from "../lib/reconcile/reconcile";

const app = await createAppContext({ env: loadEnv(), sweeper: false });
try {
  const report = await reconcile(app);
  process.stdout.write(`${JSON.stringify(reportJson(report), null, 2)}\n`);
  process.exitCode = report.differences.length === 0 ? 0 : 1;
} finally {
  await app.close();
}
