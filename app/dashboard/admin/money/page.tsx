import { readOperatorSession } from "@/app/dashboard/admin/read-operator-session";
import { ConsoleShell } from "@/components/operator/console-shell";
import { MoneyView } from "@/components/operator/money-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Money · operator" };

export default async function OperatorMoneyPage() {
  const session = await readOperatorSession();
  return (
    <ConsoleShell
      title="Money"
      lead="The books against Stripe and the chains, what is owed, and the gateway's own accounts."
      current="/dashboard/admin/money"
      operator={session?.operator}
    >
      {session === undefined ? null : <MoneyView session={session} />}
    </ConsoleShell>
  );
}
