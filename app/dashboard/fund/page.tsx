import { readDashboardSession } from "@/app/dashboard/read-dashboard-session";
import { DashboardNav } from "@/components/dashboard/dashboard-nav";
import { FundPanels } from "@/components/dashboard/fund-panels";
import { SignInPanel } from "@/components/dashboard/sign-in-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "Add funds" };

export default async function FundPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const session = await readDashboardSession();
  const params = await searchParams;
  return (
    <>
      <header className="dash-header">
        <h1>Add funds</h1>
        <p className="dash-lead">
          Prepay your token by card or with USDC. Requests spend the balance as they go.
        </p>
      </header>
      {session === undefined ? (
        <SignInPanel />
      ) : (
        <>
          <DashboardNav current="/dashboard/fund" />
          <FundPanels
            token={session.token}
            depositCode={session.record.depositCode}
            canceled={params.canceled === "1"}
          />
        </>
      )}
    </>
  );
}
