import type { Metadata } from "next";
import Link from "next/link";
import { navigation } from "@/components/docs/content";
import { docsAlternates } from "@/components/docs/metadata";
import { StatusBadge } from "@/components/docs/status-badge";
import { docSections } from "@/lib/docs/sections";

export const metadata: Metadata = {
  title: "Documentation",
  description:
    "Everything about Pod Gateway: quick start, integrations, payments, providers and the API reference.",
  alternates: { ...docsAlternates(), canonical: "/docs" },
};

export default function DocsIndexPage() {
  const sections = navigation();
  return (
    <article className="docs-article docs-article--wide">
      <header className="page-header">
        <p className="page-header__eyebrow">Documentation</p>
        <h1>Pod Gateway docs</h1>
        <p className="page-header__lead">
          Point any OpenAI or Anthropic client at Pod Gateway and pay per token in USDC. Start with the{" "}
          <Link href="/docs/using/quickstart">quickstart</Link>; it takes five minutes.
        </p>
      </header>
      <div className="section-grid">
        {sections.map((section) => (
          <section key={section.id} className="section-card">
            <h2>
              <Link href={`/docs/${section.id}`} className="section-card__link">
                {section.title}
              </Link>
            </h2>
            <p>{docSections.find((known) => known.id === section.id)?.summary}</p>
            <ul>
              {section.pages.map((page) => (
                <li key={page.slug}>
                  <Link href={`/docs/${page.slug}`} className="section-card__page">
                    {page.title}
                  </Link>{" "}
                  <StatusBadge status={page.status} />
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </article>
  );
}
