"use client";

import { useRouter } from "next/navigation";
import {
  type KeyboardEvent as ReactKeyboardEvent,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { buildSearchIndex, type SearchResult, searchDocs, splitLlmsFull } from "@/lib/docs/search";

type Index = ReturnType<typeof buildSearchIndex>;

interface ManifestPage {
  slug: string;
  title: string;
  description: string | null;
  url: string;
}

/** Loads the corpus once, from the same machine endpoints crawlers use. */
async function loadIndex(): Promise<Index> {
  const [manifestResponse, corpusResponse] = await Promise.all([
    fetch("/api/pages.json"),
    fetch("/llms-full.txt"),
  ]);
  if (!manifestResponse.ok || !corpusResponse.ok) throw new Error("search index unavailable");
  const manifest = (await manifestResponse.json()) as { pages: ManifestPage[] };
  const corpus = await corpusResponse.text();
  return buildSearchIndex(splitLlmsFull(corpus, manifest.pages));
}

function resultHref(result: SearchResult): string {
  return `/docs/${result.slug}${result.heading === undefined ? "" : `#${result.heading.id}`}`;
}

export function Search() {
  const router = useRouter();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const [index, setIndex] = useState<Index | undefined>(undefined);
  const [failed, setFailed] = useState(false);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);

  const open = useCallback(() => {
    dialogRef.current?.showModal();
    inputRef.current?.focus();
    if (index === undefined && !failed) {
      loadIndex().then(setIndex, () => setFailed(true));
    }
  }, [index, failed]);

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      const target = event.target as HTMLElement | null;
      const typing = target !== null && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
      if ((event.key === "k" && (event.metaKey || event.ctrlKey)) || (event.key === "/" && !typing)) {
        event.preventDefault();
        open();
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open]);

  const results = useMemo(() => (index === undefined ? [] : searchDocs(index, query)), [index, query]);

  function close() {
    dialogRef.current?.close();
  }

  function go(result: SearchResult) {
    close();
    setQuery("");
    router.push(resultHref(result));
  }

  function onInputKey(event: ReactKeyboardEvent<HTMLInputElement>) {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setActive((current) => Math.min(current + 1, Math.max(results.length - 1, 0)));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive((current) => Math.max(current - 1, 0));
    } else if (event.key === "Enter") {
      const chosen = results[active];
      if (chosen !== undefined) go(chosen);
    }
  }

  return (
    <>
      <button type="button" className="search-button" onClick={open} aria-label="Search the docs">
        <svg aria-hidden="true" width="16" height="16" viewBox="0 0 24 24">
          <circle cx="11" cy="11" r="7" fill="none" stroke="currentColor" strokeWidth="2" />
          <path d="m20 20-3.5-3.5" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
        </svg>
        <span className="search-button__label">Search docs</span>
        <kbd className="search-button__kbd">Ctrl K</kbd>
      </button>
      <dialog
        ref={dialogRef}
        className="search-dialog"
        aria-label="Search the docs"
        onClick={(event) => {
          // A click on the backdrop lands on the dialog element itself.
          if (event.target === dialogRef.current) close();
        }}
        onKeyDown={() => undefined}
      >
        <div className="search-dialog__panel">
          <input
            ref={inputRef}
            className="search-dialog__input"
            type="search"
            placeholder="Search pages, headers, errors…"
            value={query}
            onChange={(event) => {
              setQuery(event.target.value);
              setActive(0);
            }}
            onKeyDown={onInputKey}
            aria-label="Search query"
          />
          <ul className="search-dialog__results">
            {failed ? <li className="search-dialog__empty">Search is unavailable right now.</li> : null}
            {!failed && index === undefined ? (
              <li className="search-dialog__empty">Loading the index…</li>
            ) : null}
            {index !== undefined && query.trim() !== "" && results.length === 0 ? (
              <li className="search-dialog__empty">No page mentions “{query}”.</li>
            ) : null}
            {results.map((result, position) => (
              <li key={`${result.slug}-${result.heading?.id ?? ""}`}>
                <a
                  href={resultHref(result)}
                  className="search-result"
                  data-active={position === active}
                  onMouseEnter={() => setActive(position)}
                  onClick={(event) => {
                    event.preventDefault();
                    go(result);
                  }}
                >
                  <span className="search-result__title">
                    {result.title}
                    {result.heading === undefined ? null : (
                      <span className="search-result__heading"> › {result.heading.text}</span>
                    )}
                  </span>
                  <span className="search-result__snippet">{result.snippet}</span>
                </a>
              </li>
            ))}
          </ul>
          <p className="search-dialog__hint">
            <kbd>↑</kbd> <kbd>↓</kbd> to move, <kbd>Enter</kbd> to open, <kbd>Esc</kbd> to close
          </p>
        </div>
      </dialog>
    </>
  );
}
