import { readOperatorSession } from "@/app/dashboard/admin/read-operator-session";
import { ConsoleShell } from "@/components/operator/console-shell";
import { OverviewView } from "@/components/operator/overview-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Operator console · operator" };

export default async function OperatorOverviewPage() {
  const session = await readOperatorSession();
  return (
    <ConsoleShell
      title="Operator console"
      lead="What needs you, how funding is set up, and who did what."
      current="/dashboard/admin"
      operator={session?.operator}
    >
      {session === undefined ? null : <OverviewView session={session} />}
    </ConsoleShell>
  );
}
