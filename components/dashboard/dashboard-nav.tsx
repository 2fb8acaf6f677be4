import { NavTabs } from "./nav-tabs";
import { SignOutButton } from "./sign-out-button";

const tabs = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/keys", label: "API keys" },
  { href: "/dashboard/fund", label: "Add funds" },
  { href: "/dashboard/billing", label: "Alerts & top-up" },
  { href: "/dashboard/provider", label: "Provider" },
] as const;

/** The dashboard's tabs, shown when signed in. */
export function DashboardNav({ current }: { current: (typeof tabs)[number]["href"] }) {
  return (
    <NavTabs label="Dashboard" tabs={tabs} current={current}>
      <SignOutButton />
    </NavTabs>
  );
}
