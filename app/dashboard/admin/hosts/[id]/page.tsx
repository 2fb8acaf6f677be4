import { readOperatorSession } from "@/app/dashboard/admin/read-operator-session";
import { ConsoleShell } from "@/components/operator/console-shell";
import { HostView } from "@/components/operator/host-view";
import { isUuid } from "@/lib/ids";

export const dynamic = "force-dynamic";
export const metadata = { title: "Host · operator" };

export default async function OperatorHostPage({ params }: { params: Promise<{ id: string }> }) {
  const session = await readOperatorSession();
  const { id } = await params;
  const hostId = id.toLowerCase();
  return (
    <ConsoleShell
      title="Host"
      lead="Standing and why, canary and verification results, the record with its evidence, and the actions."
      current="/dashboard/admin/hosts"
      operator={session?.operator}
    >
      {session === undefined ? null : isUuid(hostId) ? (
        <HostView session={session} hostId={hostId} />
      ) : (
        <p className="dash-alert dash-alert--error">No host with that id.</p>
      )}
    </ConsoleShell>
  );
}
