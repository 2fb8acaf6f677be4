import type { ReactNode } from "react";
import { navigation } from "@/components/docs/content";
import { SidebarNav } from "@/components/docs/sidebar-nav";
import { SiteHeader } from "@/components/docs/site-header";

export default function DocsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      {/* Drives the phone drawer without JavaScript; SidebarNav unchecks it after a click. */}
      <input type="checkbox" id="nav-toggle" className="nav-toggle" aria-hidden="true" tabIndex={-1} />
      <SiteHeader withMenu />
      <div className="docs-shell">
        <label htmlFor="nav-toggle" className="docs-backdrop">
          <span className="visually-hidden">Close the page list</span>
        </label>
        <aside className="docs-sidebar">
          <SidebarNav sections={navigation()} />
        </aside>
        <div className="docs-main">{children}</div>
      </div>
    </>
  );
}
