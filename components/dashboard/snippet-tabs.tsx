"use client";

import { type KeyboardEvent, useRef, useState } from "react";
import { CodeBlock } from "@/components/docs/code-block";
import type { Snippet } from "./snippets";

/** One tab per client; arrow keys move between tabs as the ARIA tabs pattern expects. */
export function SnippetTabs({ snippets }: { snippets: Snippet[] }) {
  const [active, setActive] = useState(0);
  const tabRefs = useRef<Array<HTMLButtonElement | null>>([]);

  function onKeyDown(event: KeyboardEvent) {
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = (active + step + snippets.length) % snippets.length;
    setActive(next);
    tabRefs.current[next]?.focus();
  }

  const current = snippets[active];
  return (
    <div className="dash-snippets">
      <div role="tablist" aria-label="Client" className="dash-tabs" onKeyDown={onKeyDown}>
        {snippets.map((snippet, index) => (
          <button
            key={snippet.id}
            ref={(element) => {
              tabRefs.current[index] = element;
            }}
            type="button"
            role="tab"
            id={`snippet-tab-${snippet.id}`}
            aria-selected={index === active}
            aria-controls={`snippet-panel-${snippet.id}`}
            tabIndex={index === active ? 0 : -1}
            className="dash-tab"
            onClick={() => setActive(index)}
          >
            {snippet.label}
          </button>
        ))}
      </div>
      {current === undefined ? null : (
        <div
          role="tabpanel"
          id={`snippet-panel-${current.id}`}
          aria-labelledby={`snippet-tab-${current.id}`}
          data-snippet={current.id}
        >
          <CodeBlock data-language={current.language} className="dash-code">
            <code>{current.code}</code>
          </CodeBlock>
        </div>
      )}
    </div>
  );
}
