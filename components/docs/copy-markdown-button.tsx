"use client";

import { useState } from "react";

/** Copies the page's raw Markdown, the quickest way to hand a page to an LLM. */
export function CopyMarkdownButton({ markdownPath }: { markdownPath: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");

  async function copy() {
    try {
      const response = await fetch(markdownPath);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      await navigator.clipboard.writeText(await response.text());
      setState("copied");
    } catch {
      setState("failed");
    }
    window.setTimeout(() => setState("idle"), 1800);
  }

  const label = state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy as Markdown";
  return (
    <button type="button" className="page-action" onClick={copy}>
      {label}
    </button>
  );
}
