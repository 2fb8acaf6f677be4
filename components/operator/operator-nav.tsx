"use client";

import { useRouter } from "next/navigation";
import { NavTabs } from "@/components/dashboard/nav-tabs";

const tabs = [
  { href: "/dashboard/admin", label: "Overview" },
  { href: "/dashboard/admin/catalog", label: "Catalog" },
  { href: "/dashboard/admin/hosts", label: "Hosts" },
  { href: "/dashboard/admin/payouts", label: "Payouts" },
  { href: "/dashboard/admin/money", label: "Money" },
  { href: "/dashboard/admin/credits", label: "Credits" },
] as const;

export type OperatorTab = (typeof tabs)[number]["href"];

/** The console's tabs, the operator's name and sign-out. */
export function OperatorNav({ current, operator }: { current: OperatorTab; operator: string }) {
  const router = useRouter();
  return (
    <NavTabs label="Operator console" tabs={tabs} current={current}>
      <span className="dash-muted" data-testid="operator-name">
        {operator}
      </span>
      <button
        type="button"
        className="dash-button dash-button--quiet"
        onClick={() =>
          void fetch("/dashboard/admin/session", { method: "DELETE", credentials: "same-origin" })
            .catch(() => undefined)
            .then(() => router.refresh())
        }
      >
        Sign out
      </button>
    </NavTabs>
  );
}
