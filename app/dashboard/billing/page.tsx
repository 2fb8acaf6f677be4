import { readDashboardSession } from "@/app/dashboard/read-dashboard-session";
import { BillingPanel } from "@/components/dashboard/billing-panel";
import { DashboardNav } from "@/components/dashboard/dashboard-nav";
import { SignInPanel } from "@/components/dashboard/sign-in-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "Alerts and auto top-up" };

/** Stripe's setup Checkout returns here with `?card=saved` or `?card=canceled`. */
export default async function BillingPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const session = await readDashboardSession();
  const card = (await searchParams).card;
  return (
    <>
      <header className="dash-header">
        <h1>Alerts and auto top-up</h1>
        <p className="dash-lead">
          Know before your balance runs out, or never let it: top up by card automatically.
        </p>
      </header>
      {session === undefined ? (
        <SignInPanel />
      ) : (
        <>
          <DashboardNav current="/dashboard/billing" />
          <BillingPanel
            token={session.token}
            cardNotice={card === "saved" || card === "canceled" ? card : undefined}
          />
        </>
      )}
    </>
  );
}
