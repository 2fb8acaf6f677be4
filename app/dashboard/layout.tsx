import type { Metadata } from "next";
import type { ReactNode } from "react";
import { readDashboardSession } from "@/app/dashboard/read-dashboard-session";
import { SessionKeeper } from "@/components/dashboard/session-keeper";
import { SiteHeader } from "@/components/docs/site-header";
import "./dashboard.css";

export const metadata: Metadata = {
  title: { default: "Dashboard", template: "%s · Pod Gateway dashboard" },
  robots: { index: false, follow: false },
  // Nothing the dashboard links to learns which page (or token) the person came from.
  referrer: "no-referrer",
};

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await readDashboardSession();
  return (
    <>
      <SiteHeader />
      <main className="dash-shell">
        <SessionKeeper signedIn={session !== undefined} token={session?.token} />
        {children}
      </main>
    </>
  );
}
