"use client";

import { useEffect, useState } from "react";
import type { DocHeading } from "@/lib/docs/headings";

/** "On this page": the page's headings, with the one in view highlighted. */
export function TableOfContents({ headings }: { headings: DocHeading[] }) {
  const [activeId, setActiveId] = useState<string | undefined>(headings[0]?.id);

  useEffect(() => {
    const elements = headings
      .map((heading) => document.getElementById(heading.id))
      .filter((element): element is HTMLElement => element !== null);
    const observer = new IntersectionObserver(
      (entries) => {
        const visible = entries.filter((entry) => entry.isIntersecting);
        const first = visible.sort(
          (left, right) => left.boundingClientRect.top - right.boundingClientRect.top,
        )[0];
        if (first !== undefined) setActiveId(first.target.id);
      },
      { rootMargin: "-72px 0px -70% 0px" },
    );
    for (const element of elements) observer.observe(element);
    return () => observer.disconnect();
  }, [headings]);

  if (headings.length === 0) return null;
  return (
    <nav className="toc" aria-label="On this page">
      <p className="toc__title">On this page</p>
      <ul>
        {headings.map((heading) => (
          <li key={heading.id} className={heading.depth === 3 ? "toc__item toc__item--nested" : "toc__item"}>
            <a href={`#${heading.id}`} aria-current={heading.id === activeId ? "location" : undefined}>
              {heading.text}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
