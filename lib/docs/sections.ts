/**
 * The docs sections in reading order. The first folder of a page's slug names its section;
 * the llms.txt index, the sidebar and the section pages all take their order and headings
 * from here so that humans and crawlers see the same structure.
 */
export interface DocSection {
  id: string;
  title: string;
  /** One line shown on the docs index and the section page. */
  summary: string;
}

export const docSections: readonly DocSection[] = [
  {
    id: "introduction",
    title: "Introduction",
    summary: "What Pod Gateway is and how a request flows through it.",
  },
  {
    id: "using",
    title: "Using Pod Gateway",
    summary: "Register a token, fund it, send requests, control spend and pay per request.",
  },
  {
    id: "integrations",
    title: "Integrations",
    summary: "Base URL and key settings for coding agents, SDKs and frameworks.",
  },
  {
    id: "marketplace",
    title: "Marketplace",
    summary: "Routing modes, provider pinning, prices and the fee split.",
  },
  {
    id: "providers",
    title: "Running a provider",
    summary: "Serve inference from your GPUs or resell an upstream key, and get paid in USDC.",
  },
  { id: "api", title: "API reference", summary: "Every endpoint, header and error the gateway returns." },
  { id: "resources", title: "Resources", summary: "Machine-readable docs for agents and LLM crawlers." },
];

const knownSectionIds = docSections.map((section) => section.id);

/** Heading for a section id; unknown folders get a title-cased heading so nothing is hidden. */
export function sectionTitle(id: string): string {
  const known = docSections.find((section) => section.id === id);
  if (known !== undefined) return known.title;
  return id.replace(/-/g, " ").replace(/\b\w/g, (letter) => letter.toUpperCase());
}

/** Known sections in their declared order, then any other section alphabetically. */
export function compareSectionIds(left: string, right: string): number {
  const leftIndex = knownSectionIds.indexOf(left);
  const rightIndex = knownSectionIds.indexOf(right);
  if (leftIndex !== -1 && rightIndex !== -1) return leftIndex - rightIndex;
  if (leftIndex !== -1) return -1;
  if (rightIndex !== -1) return 1;
  return left.localeCompare(right);
}
