import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { docsAlternates, siteOrigin, websiteJsonLd } from "@/components/docs/metadata";
import { themeInitScript } from "@/components/docs/theme";
import { docsSite } from "@/lib/docs/site";
import "./globals.css";

export const metadata: Metadata = {
  metadataBase: siteOrigin(),
  title: { default: `${docsSite.name}: one base URL for every model`, template: `%s · ${docsSite.docsName}` },
  description: docsSite.summary,
  alternates: docsAlternates(),
  icons: { icon: "/favicon.svg" },
  openGraph: {
    type: "website",
    siteName: docsSite.docsName,
    title: docsSite.name,
    description: docsSite.summary,
  },
  twitter: { card: "summary", title: docsSite.name, description: docsSite.summary },
};

export const viewport: Viewport = {
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#0b0f14" },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The theme script sets data-theme before hydration, so React must not complain about it.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script, no user input. */}
        <script dangerouslySetInnerHTML={{ __html: themeInitScript }} />
      </head>
      <body>
        <script
          type="application/ld+json"
          // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON-LD of constants, `<` escaped.
          dangerouslySetInnerHTML={{ __html: websiteJsonLd() }}
        />
        {children}
      </body>
    </html>
  );
}
