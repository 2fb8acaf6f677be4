import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { navigation } from "@/components/docs/content";
import { docsAlternates } from "@/components/docs/metadata";
import { StatusBadge } from "@/components/docs/status-badge";
import { docSections } from "@/lib/docs/sections";

type Params = { section: string };

export const dynamicParams = false;

export function generateStaticParams(): Params[] {
  return navigation().map((section) => ({ section: section.id }));
}

export async function generateMetadata({ params }: { params: Promise<Params> }): Promise<Metadata> {
  const { section: id } = await params;
  const section = navigation().find((candidate) => candidate.id === id);
  return {
    title: section?.title ?? "Not found",
    description: docSections.find((known) => known.id === id)?.summary,
    alternates: { ...docsAlternates(), canonical: `/docs/${id}` },
  };
}

export default async function SectionPage({ params }: { params: Promise<Params> }) {
  const { section: id } = await params;
  const section = navigation().find((candidate) => candidate.id === id);
  if (section === undefined) notFound();
  return (
    <article className="docs-article">
      <header className="page-header">
        <p className="page-header__eyebrow">Section</p>
        <h1>{section.title}</h1>
        <p className="page-header__lead">{docSections.find((known) => known.id === id)?.summary}</p>
      </header>
      <ul className="page-list">
        {section.pages.map((page) => (
          <li key={page.slug}>
            <Link href={`/docs/${page.slug}`} className="page-list__link">
              <span className="page-list__title">
                {page.title} <StatusBadge status={page.status} />
              </span>
              <span className="page-list__description">{page.description}</span>
            </Link>
          </li>
        ))}
      </ul>
    </article>
  );
}
