import { readDashboardSession } from "@/app/dashboard/read-dashboard-session";
import { CardReturn } from "@/components/dashboard/card-return";
import { DashboardNav } from "@/components/dashboard/dashboard-nav";
import { SignInPanel } from "@/components/dashboard/sign-in-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "Card payment" };

/** Stripe Checkout's success_url: `?session_id={CHECKOUT_SESSION_ID}` (Stripe's id, not the token). */
export default async function CardReturnPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const session = await readDashboardSession();
  const sessionId = (await searchParams).session_id;
  return (
    <>
      <header className="dash-header">
        <h1>Card payment</h1>
      </header>
      {session === undefined ? (
        <SignInPanel />
      ) : (
        <>
          <DashboardNav current="/dashboard/fund" />
          {typeof sessionId === "string" && /^[A-Za-z0-9_]{1,200}$/.test(sessionId) ? (
            <CardReturn token={session.token} sessionId={sessionId} />
          ) : (
            <p className="dash-alert dash-alert--error">
              This page needs the session_id Stripe adds to the address.
            </p>
          )}
        </>
      )}
    </>
  );
}
