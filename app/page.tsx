import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { docsAlternates } from "@/components/docs/metadata";
import { SiteHeader } from "@/components/docs/site-header";
import { StatusBadge } from "@/components/docs/status-badge";
import type { PageStatus } from "@/lib/docs/source";

export const metadata: Metadata = {
  // Next replaces the layout's alternates rather than merging them, so repeat the machine files.
  alternates: { ...docsAlternates(), canonical: "/" },
};

const steps: Array<{ title: string; body: ReactNode; href: string; link: string }> = [
  {
    title: "Register",
    body: (
      <>
        <code>POST /v1/register</code> returns a token and a deposit code. Save the token: it is your account.
      </>
    ),
    href: "/docs/api/register",
    link: "Register reference",
  },
  {
    title: "Fund",
    body: "Add funds by card (Stripe), or send USDC on Solana or Base from a wallet; 1 USDC is $1.00 of balance.",
    href: "/docs/using/funding",
    link: "Funding options",
  },
  {
    title: "Call",
    body: (
      <>
        Use <code>/proxy/&lt;token&gt;/v1</code> as the OpenAI base URL, or <code>/proxy/&lt;token&gt;</code>{" "}
        for Anthropic clients.
      </>
    ),
    href: "/docs/using/quickstart",
    link: "Quickstart",
  },
];

const features: Array<{ title: string; text: string; href: string; status: PageStatus }> = [
  {
    title: "Drop-in API, any model",
    text: "OpenAI Chat Completions and Anthropic Messages, streaming and tools included. Every model from either format: the gateway translates.",
    href: "/docs/using/drop-in-api",
    status: "available",
  },
  {
    title: "Prepaid balance, exact billing",
    text: "Each request holds its worst case, captures what the model used and releases the rest. No negative balances.",
    href: "/docs/using/balance-and-billing",
    status: "available",
  },
  {
    title: "Spend controls",
    text: "Cap the price per million input and output tokens per request; never get billed above it.",
    href: "/docs/using/spend-controls",
    status: "available",
  },
  {
    title: "Routing and pinning",
    text: "Marketplace first, centralized fallback, health demotion, or pin the providers you trust, in order.",
    href: "/docs/marketplace/routing",
    status: "available",
  },
  {
    title: "Sell spare capacity",
    text: "Resell an upstream key as a key relay and earn 80% of every request it serves, capped at the centralized price.",
    href: "/docs/providers/key-relays",
    status: "available",
  },
  {
    title: "x402 pay-per-request",
    text: "No account, no key: quote, pay USDC or SOL on Solana, get the completion.",
    href: "/docs/using/x402-payments",
    status: "available",
  },
];

const integrations = [
  ["Claude Code", "claude-code"],
  ["Codex", "codex"],
  ["Cursor", "cursor"],
  ["OpenCode", "opencode"],
  ["Cline", "cline"],
  ["Aider", "aider"],
  ["LangChain", "langchain"],
  ["OpenAI SDK", "openai-sdk"],
  ["Anthropic SDK", "anthropic-sdk"],
] as const;

export default function HomePage() {
  return (
    <>
      <SiteHeader />
      <main className="landing">
        <section className="hero">
          <div>
            <p className="hero__eyebrow">Inference marketplace · settled in USDC</p>
            <h1>
              One base URL. <em>Every model.</em> Pay per token.
            </h1>
            <p className="hero__lead">
              Pod Gateway speaks the OpenAI and Anthropic APIs. Point your SDK or coding agent at it and each
              request is served by the best-priced provider, billed to the microdollar from a prepaid balance.
            </p>
            <div className="cta-row">
              <Link className="button button--primary" href="/dashboard">
                Create a token →
              </Link>
              <Link className="button" href="/docs/using/quickstart">
                Quickstart: 5 minutes
              </Link>
              <Link className="button" href="/docs/api/overview">
                API reference
              </Link>
            </div>
          </div>
          <figure className="hero-code">
            <figcaption className="visually-hidden">Example: the only change is the base URL</figcaption>
            <div className="hero-code__bar" aria-hidden="true">
              <span />
              <span />
              <span />
            </div>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: on a phone the example scrolls sideways; the keyboard must reach it. */}
            <pre tabIndex={0}>
              <code>
                <span className="c"># 1. get a token</span>
                {"\n"}curl -X POST <span className="s">$POD_BASE_URL/v1/register</span>
                {"\n\n"}
                <span className="c"># 2. use it as your base URL</span>
                {"\n"}
                <span className="k">const</span> client = <span className="k">new</span> OpenAI({"{"}
                {"\n"}
                {"  "}baseURL:{" "}
                <span className="s">
                  `${"{"}base{"}"}/proxy/${"{"}token{"}"}/v1`
                </span>
                ,{"\n"}
                {"  "}apiKey: <span className="s">"pod"</span>,{"\n"}
                {"}"});{"\n\n"}
                <span className="c"># 3. nothing else changes</span>
                {"\n"}
                <span className="k">await</span> client.chat.completions.create({"{"} model:{" "}
                <span className="s">"gpt-4o-mini"</span>, … {"}"});
              </code>
            </pre>
          </figure>
        </section>

        <section className="landing-section">
          <h2>From zero to first token</h2>
          <p>No signup form and no API key to manage: the token in the URL is the credential.</p>
          <div className="steps">
            {steps.map((step, index) => (
              <div className="step" key={step.title}>
                <span className="step__number">{index + 1}</span>
                <h3>{step.title}</h3>
                <p>{step.body}</p>
                <Link href={step.href}>{step.link}</Link>
              </div>
            ))}
          </div>
        </section>

        <section className="landing-section">
          <h2>What you get</h2>
          <p>Honest labels: features still being built say so, here and in the docs.</p>
          <div className="features">
            {features.map((feature) => (
              <div className="feature" key={feature.title}>
                <h3>
                  {feature.title} <StatusBadge status={feature.status} />
                </h3>
                <p>{feature.text}</p>
                <Link href={feature.href}>Read more</Link>
              </div>
            ))}
          </div>
        </section>

        <section className="landing-section">
          <h2>Works with your tools</h2>
          <p>
            Anything that lets you set an OpenAI or Anthropic base URL works. These have step-by-step pages.
          </p>
          <div className="chips">
            {integrations.map(([name, slug]) => (
              <Link className="chip" key={slug} href={`/docs/integrations/${slug}`}>
                {name}
              </Link>
            ))}
          </div>
        </section>

        <section className="landing-section">
          <h2>Built for agents to read</h2>
          <p>
            Every docs page is plain Markdown at its URL plus <code>.md</code>, and the whole site is one
            request away.
          </p>
          <div className="agents-panel">
            <a href="/llms.txt">
              <code>/llms.txt</code>
              <span>Index of every page by section</span>
            </a>
            <a href="/llms-full.txt">
              <code>/llms-full.txt</code>
              <span>The whole corpus as Markdown</span>
            </a>
            <a href="/api/pages.json">
              <code>/api/pages.json</code>
              <span>JSON manifest of all pages</span>
            </a>
            <a href="/docs/using/quickstart.md">
              <code>/docs/…/page.md</code>
              <span>Any page as raw Markdown</span>
            </a>
          </div>
        </section>
      </main>
      <footer className="site-footer">
        Pod Gateway · <Link href="/docs">Docs</Link> · <a href="/llms.txt">llms.txt</a> ·{" "}
        <Link href="/docs/api/errors">Errors</Link>
      </footer>
    </>
  );
}
