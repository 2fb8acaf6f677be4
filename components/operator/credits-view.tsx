import { listOperatorActions } from "@/lib/operator-log/operator-actions";
import { CreditForm } from "./credit-form";
import { OperatorActionsTable } from "./operator-actions-table";
import type { OperatorConsoleSession } from "./operator-console-session";

/** Credits a token with a reason, and the credits given so far. */
export async function CreditsView({ session }: { session: OperatorConsoleSession }) {
  const rows = await listOperatorActions(session.app.database.db, 50, "credit");
  return (
    <>
      <section className="dash-section" aria-labelledby="credit-title">
        <h2 id="credit-title">Credit a token</h2>
        <p className="dash-muted">
          Posted in the ledger from the admin-credits account, with your name and the reason.
        </p>
        <CreditForm />
      </section>
      <section className="dash-section" aria-labelledby="credits-title">
        <h2 id="credits-title">Credits given</h2>
        <OperatorActionsTable rows={rows} />
      </section>
    </>
  );
}
