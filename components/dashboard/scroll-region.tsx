import type { ReactNode } from "react";

/**
 * A box that scrolls sideways on a phone (a wide table). It takes keyboard focus and is a
 * named region so a keyboard or screen-reader user can reach and scroll it too (axe-core's
 * scrollable-region-focusable).
 */
export function ScrollRegion({
  label,
  className = "dash-table-wrap",
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to be scrolled.
    <section className={className} tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}
