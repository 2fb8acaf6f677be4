import { readDashboardSession } from "@/app/dashboard/read-dashboard-session";
import { DashboardHome } from "@/components/dashboard/dashboard-home";
import { SignInPanel } from "@/components/dashboard/sign-in-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "Overview" };

export default async function DashboardPage() {
  const session = await readDashboardSession();
  if (session === undefined) {
    return (
      <>
        <header className="dash-header">
          <h1>Dashboard</h1>
          <p className="dash-lead">
            Your prepaid token: balance, spend, funding and ready-to-paste client setups.
          </p>
        </header>
        <SignInPanel />
      </>
    );
  }
  return <DashboardHome session={session} />;
}
