import { compareSectionIds, sectionTitle } from "./sections";
import type { PageStatus } from "./source";

/** What the sidebar, the pager and the section pages need to know about a page. */
export interface NavPage {
  slug: string;
  section: string;
  title: string;
  description: string;
  order?: number | undefined;
  status: PageStatus;
}

export interface NavSection<Page extends NavPage = NavPage> {
  id: string;
  title: string;
  pages: Page[];
}

function comparePages(left: NavPage, right: NavPage): number {
  const leftOrder = left.order ?? Number.POSITIVE_INFINITY;
  const rightOrder = right.order ?? Number.POSITIVE_INFINITY;
  if (leftOrder !== rightOrder) return leftOrder < rightOrder ? -1 : 1;
  return left.title.localeCompare(right.title);
}

/** Pages grouped into sections in reading order: sections as declared, pages by `order` then title. */
export function buildNavigation<Page extends NavPage>(pages: readonly Page[]): NavSection<Page>[] {
  const bySection = new Map<string, Page[]>();
  for (const page of pages) {
    const list = bySection.get(page.section) ?? [];
    list.push(page);
    bySection.set(page.section, list);
  }
  return [...bySection.keys()].sort(compareSectionIds).map((id) => ({
    id,
    title: sectionTitle(id),
    pages: [...(bySection.get(id) ?? [])].sort(comparePages),
  }));
}

/** The pages before and after `slug` in reading order, for the pager at the foot of a page. */
export function neighbours<Page extends NavPage>(
  pages: readonly Page[],
  slug: string,
): { previous: Page | undefined; next: Page | undefined } {
  const ordered = buildNavigation(pages).flatMap((section) => section.pages);
  const index = ordered.findIndex((page) => page.slug === slug);
  if (index === -1) return { previous: undefined, next: undefined };
  return { previous: ordered[index - 1], next: ordered[index + 1] };
}

export const statusLabels: Record<PageStatus, string | undefined> = {
  available: undefined,
  "in-progress": "In progress",
  planned: "Not built yet",
};
