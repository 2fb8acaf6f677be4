import { readDashboardSession } from "@/app/dashboard/read-dashboard-session";
import { DashboardNav } from "@/components/dashboard/dashboard-nav";
import { KeysPanel } from "@/components/dashboard/keys-panel";
import { SignInPanel } from "@/components/dashboard/sign-in-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "API keys" };

export default async function KeysPage() {
  const session = await readDashboardSession();
  return (
    <>
      <header className="dash-header">
        <h1>API keys</h1>
        <p className="dash-lead">
          Your token is your account. Give each app or person a key of its own: it spends the same balance,
          can be limited per day or month, and can be rotated or revoked without touching the others.
        </p>
      </header>
      {session === undefined ? (
        <SignInPanel />
      ) : (
        <>
          <DashboardNav current="/dashboard/keys" />
          <KeysPanel token={session.token} />
        </>
      )}
    </>
  );
}
