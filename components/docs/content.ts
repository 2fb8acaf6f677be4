import { allDocs, type Doc } from "contentlayer/generated";
import { buildNavigation, type NavPage, type NavSection } from "@/lib/docs/navigation";

/**
 * The compiled pages from contentlayer2, the source of the HTML site. Only server components
 * import this module: the compiled MDX code stays out of client bundles.
 */

export type DocNavPage = NavPage;

function toNavPage(doc: Doc): DocNavPage {
  return {
    slug: doc.slug,
    section: doc.section,
    title: doc.title,
    description: doc.description,
    order: doc.order,
    status: doc.status,
  };
}

export function listDocs(): Doc[] {
  return allDocs;
}

export function findDoc(slug: string): Doc | undefined {
  return allDocs.find((doc) => doc.slug === slug);
}

/** The lightweight page list the sidebar and pager need, without any compiled code. */
export function navPages(): DocNavPage[] {
  return allDocs.map(toNavPage);
}

export function navigation(): NavSection<DocNavPage>[] {
  return buildNavigation(navPages());
}
