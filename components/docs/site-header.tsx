import Link from "next/link";
import { Logo } from "./logo";
import { Search } from "./search";
import { ThemeToggle } from "./theme-toggle";

const siteLinks = [
  { href: "/docs", label: "Docs" },
  { href: "/docs/api/overview", label: "API" },
  { href: "/docs/resources/for-agents", label: "For agents" },
  { href: "/dashboard", label: "Dashboard" },
] as const;

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
          {siteLinks.map((link) => (
            <Link key={link.href} href={link.href}>
              {link.label}
            </Link>
          ))}
        </nav>
        <div className="site-header__actions">
          <Search />
          <ThemeToggle />
          {/* Phones: the links above are hidden, so they open from here (no script needed). */}
          <details className="site-header__more">
            <summary className="icon-button" aria-label="Menu">
              <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24">
                <circle cx="12" cy="5" r="1.8" fill="currentColor" />
                <circle cx="12" cy="12" r="1.8" fill="currentColor" />
                <circle cx="12" cy="19" r="1.8" fill="currentColor" />
              </svg>
            </summary>
            <nav className="site-header__more-list" aria-label="Site menu">
              {siteLinks.map((link) => (
                <Link key={link.href} href={link.href}>
                  {link.label}
                </Link>
              ))}
            </nav>
          </details>
        </div>
      </div>
    </header>
  );
}
