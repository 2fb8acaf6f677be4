import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { findDoc, listDocs, navPages } from "@/components/docs/content";
import { CopyMarkdownButton } from "@/components/docs/copy-markdown-button";
import { MdxContent } from "@/components/docs/mdx-content";
import { docsAlternates } from "@/components/docs/metadata";
import { Pager } from "@/components/docs/pager";
import { StatusBadge } from "@/components/docs/status-badge";
import { TableOfContents } from "@/components/docs/toc";
import { extractHeadings } from "@/lib/docs/headings";
import { neighbours } from "@/lib/docs/navigation";
import { sectionTitle } from "@/lib/docs/sections";
import { markdownPath } from "@/lib/docs/urls";

type Params = { section: string; page: string };

export const dynamicParams = false;

export function generateStaticParams(): Params[] {
  return listDocs().map((doc) => {
    const [section = "", page = ""] = doc.slug.split("/");
    return { section, page };
  });
}

export async function generateMetadata({ params }: { params: Promise<Params> }): Promise<Metadata> {
  const { section, page } = await params;
  const doc = findDoc(`${section}/${page}`);
  if (doc === undefined) return { title: "Not found" };
  return {
    title: doc.title,
    description: doc.description,
    alternates: docsAlternates(doc.slug, doc.title),
    openGraph: { type: "article", title: doc.title, description: doc.description, url: `/docs/${doc.slug}` },
  };
}

export default async function DocPage({ params }: { params: Promise<Params> }) {
  const { section, page } = await params;
  const doc = findDoc(`${section}/${page}`);
  if (doc === undefined) notFound();
  const { previous, next } = neighbours(navPages(), doc.slug);
  const headings = extractHeadings(doc.body.raw);
  return (
    <div className="docs-page">
      <article className="docs-article">
        <header className="page-header">
          <p className="page-header__eyebrow">
            <Link href={`/docs/${doc.section}`}>{sectionTitle(doc.section)}</Link>
          </p>
          <h1>
            {doc.title} <StatusBadge status={doc.status} />
          </h1>
          <p className="page-header__lead">{doc.description}</p>
          <div className="page-actions">
            <a className="page-action" href={markdownPath(doc.slug)}>
              View as Markdown
            </a>
            <CopyMarkdownButton markdownPath={markdownPath(doc.slug)} />
          </div>
        </header>
        <div className="prose">
          <MdxContent code={doc.body.code} />
        </div>
        <Pager previous={previous} next={next} />
      </article>
      <aside className="docs-toc">
        <TableOfContents headings={headings} />
      </aside>
    </div>
  );
}
