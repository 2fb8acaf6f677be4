import Link from "next/link";
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
    <nav className="dash-nav" aria-label="Dashboard">
      <ul>
        {tabs.map((tab) => (
          <li key={tab.href}>
            <Link
              href={tab.href}
              className="dash-nav__link"
              aria-current={tab.href === current ? "page" : undefined}
            >
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
      <SignOutButton />
    </nav>
  );
}
