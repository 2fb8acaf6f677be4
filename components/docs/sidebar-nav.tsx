"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { NavSection } from "@/lib/docs/navigation";
import { StatusBadge } from "./status-badge";

/** The section-grouped page list; highlights the current page and closes the phone drawer on click. */
export function SidebarNav({ sections }: { sections: NavSection[] }) {
  const pathname = usePathname();

  function closeDrawer() {
    const toggle = document.getElementById("nav-toggle");
    if (toggle instanceof HTMLInputElement) toggle.checked = false;
  }

  return (
    <nav className="sidebar-nav" aria-label="Documentation">
      {sections.map((section) => (
        <div className="sidebar-nav__section" key={section.id}>
          <Link href={`/docs/${section.id}`} className="sidebar-nav__heading" onClick={closeDrawer}>
            {section.title}
          </Link>
          <ul>
            {section.pages.map((page) => {
              const href = `/docs/${page.slug}`;
              const current = pathname === href;
              return (
                <li key={page.slug}>
                  <Link
                    href={href}
                    className="sidebar-nav__link"
                    aria-current={current ? "page" : undefined}
                    onClick={closeDrawer}
                  >
                    <span>{page.title}</span>
                    <StatusBadge status={page.status} />
                  </Link>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </nav>
  );
}
