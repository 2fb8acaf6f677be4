import { readOperatorSession } from "@/app/dashboard/admin/read-operator-session";
import { ConsoleShell } from "@/components/operator/console-shell";
import { HostsView } from "@/components/operator/hosts-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Hosts · operator" };

export default async function OperatorHostsPage() {
  const session = await readOperatorSession();
  return (
    <ConsoleShell
      title="Hosts"
      lead="Every host's status and standing; open one for its record, evidence and actions."
      current="/dashboard/admin/hosts"
      operator={session?.operator}
    >
      {session === undefined ? null : <HostsView session={session} />}
    </ConsoleShell>
  );
}
