import { readOperatorSession } from "@/app/dashboard/admin/read-operator-session";
import { CatalogView } from "@/components/operator/catalog-view";
import { ConsoleShell } from "@/components/operator/console-shell";

export const dynamic = "force-dynamic";
export const metadata = { title: "Catalog · operator" };

export default async function OperatorCatalogPage({
  searchParams,
}: {
  searchParams: Promise<{ q?: string }>;
}) {
  const session = await readOperatorSession();
  const { q } = await searchParams;
  return (
    <ConsoleShell
      title="Catalog"
      lead="Models, their prices and limits, and every change with who made it."
      current="/dashboard/admin/catalog"
      operator={session?.operator}
    >
      {session === undefined ? null : (
        <CatalogView session={session} query={typeof q === "string" ? q.slice(0, 100) : ""} />
      )}
    </ConsoleShell>
  );
}
