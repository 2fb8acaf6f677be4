"use client";

import { type ComponentProps, useRef, useState } from "react";

/** A highlighted code block with its language and a copy button. */
export function CodeBlock({ children, ...props }: ComponentProps<"pre"> & { "data-language"?: string }) {
  const preRef = useRef<HTMLPreElement>(null);
  const [copied, setCopied] = useState(false);
  const language = props["data-language"];

  async function copy() {
    const text = preRef.current?.textContent ?? "";
    try {
      await navigator.clipboard.writeText(text.replace(/\n$/, ""));
      setCopied(true);
      window.setTimeout(() => setCopied(false), 1600);
    } catch {
      // Clipboard access can be refused (insecure origin, permissions); the text stays selectable.
    }
  }

  return (
    <div className="code-block">
      <div className="code-block__bar">
        <span className="code-block__lang">
          {language !== undefined && language !== "text" ? language : ""}
        </span>
        <button type="button" className="code-block__copy" onClick={copy} aria-label="Copy code">
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a long line scrolls the block sideways; the keyboard must reach it to scroll it. */}
      <pre ref={preRef} tabIndex={0} {...props}>
        {children}
      </pre>
    </div>
  );
}
