import Link from "next/link";
import { Logo } from "./logo";
import { Search } from "./search";
import { ThemeToggle } from "./theme-toggle";

/** The top bar of every page: brand, search, docs links and the theme switch. */
export function SiteHeader({ withMenu = false }: { withMenu?: boolean }) {
  return (
    <header className="site-header">
      <div className="site-header__inner">
        {withMenu ? (
          <label
            htmlFor="nav-toggle"
            className="icon-button site-header__menu"
            aria-label="Open the page list"
          >
            <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24">
              <path d="M4 7h16M4 12h16M4 17h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            </svg>
          </label>
        ) : null}
        <Link href="/" className="brand" aria-label="Pod Gateway home">
          <Logo />
          <span className="brand__name">Pod Gateway</span>
        </Link>
        <nav className="site-header__links" aria-label="Site">
          <Link href="/docs">Docs</Link>
          <Link href="/docs/api/overview">API</Link>
          <Link href="/docs/resources/for-agents">For agents</Link>
          <Link href="/dashboard">Dashboard</Link>
        </nav>
        <div className="site-header__actions">
          <Search />
          <ThemeToggle />
        </div>
      </div>
    </header>
  );
}
