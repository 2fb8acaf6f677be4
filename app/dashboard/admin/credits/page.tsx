import { readOperatorSession } from "@/app/dashboard/admin/read-operator-session";
import { ConsoleShell } from "@/components/operator/console-shell";
import { CreditsView } from "@/components/operator/credits-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Credits · operator" };

export default async function OperatorCreditsPage() {
  const session = await readOperatorSession();
  return (
    <ConsoleShell
      title="Credits"
      lead="Credit a person's token, with a reason the ledger keeps."
      current="/dashboard/admin/credits"
      operator={session?.operator}
    >
      {session === undefined ? null : <CreditsView session={session} />}
    </ConsoleShell>
  );
}
