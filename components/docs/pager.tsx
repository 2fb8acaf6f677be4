import Link from "next/link";
import type { NavPage } from "@/lib/docs/navigation";

/** Previous and next page in reading order. */
export function Pager({ previous, next }: { previous: NavPage | undefined; next: NavPage | undefined }) {
  if (previous === undefined && next === undefined) return null;
  return (
    <nav className="pager" aria-label="Previous and next page">
      {previous === undefined ? (
        <span />
      ) : (
        <Link href={`/docs/${previous.slug}`} className="pager__link">
          <span className="pager__hint">Previous</span>
          <span className="pager__title">{previous.title}</span>
        </Link>
      )}
      {next === undefined ? (
        <span />
      ) : (
        <Link href={`/docs/${next.slug}`} className="pager__link pager__link--next">
          <span className="pager__hint">Next</span>
          <span className="pager__title">{next.title}</span>
        </Link>
      )}
    </nav>
  );
}
