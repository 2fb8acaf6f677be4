import { ProviderPanel } from "@/components/dashboard/provider-panel";

export const metadata = { title: "Provider" };

export default function ProviderPage() {
  return (
    <>
      <header className="dash-header">
        <h1>Provider</h1>
        <p className="dash-lead">Your host: bond, models and prices, earnings and withdrawals.</p>
      </header>
      <ProviderPanel />
    </>
  );
}
