import Link from "next/link";
import type { ReactNode } from "react";

/** A row of page tabs (the dashboard's, the operator console's), the current one marked, then `children`. */
export function NavTabs({
  label,
  tabs,
  current,
  children,
}: {
  label: string;
  tabs: readonly { href: string; label: string }[];
  current: string;
  children: ReactNode;
}) {
  return (
    <nav className="dash-nav" aria-label={label}>
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
      {children}
    </nav>
  );
}
