/** Names and one-liners of the docs site, in one place so every output says the same thing. */
export const docsSite = {
  name: "Pod Gateway",
  docsName: "Pod Gateway Docs",
  summary:
    "Pod Gateway is an inference marketplace with a drop-in OpenAI- and Anthropic-compatible API: change one base URL, pay per token from a prepaid USDC balance or per request with x402.",
  manifestDescription:
    "Pod Gateway docs. Every page is reachable as raw Markdown by appending .md to its URL. Also exposes /llms.txt (page index) and /llms-full.txt (full corpus).",
} as const;
