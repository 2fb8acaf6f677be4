import { readOperatorSession } from "@/app/dashboard/admin/read-operator-session";
import { ConsoleShell } from "@/components/operator/console-shell";
import { PayoutsView } from "@/components/operator/payouts-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Payouts · operator" };

export default async function OperatorPayoutsPage() {
  const session = await readOperatorSession();
  return (
    <ConsoleShell
      title="Payouts"
      lead="Host withdrawals and bond returns: approve those held for review, follow the rest on chain."
      current="/dashboard/admin/payouts"
      operator={session?.operator}
    >
      {session === undefined ? null : <PayoutsView session={session} />}
    </ConsoleShell>
  );
}
