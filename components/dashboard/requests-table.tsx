"use client";

import { useCallback, useEffect, useState } from "react";
import { formatUsd } from "./format";

interface TransactionRow {
  id: string;
  kind: string;
  amount_microunits: number;
  created_at: string;
  model?: string | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  reason?: string | null;
}

interface Page {
  transactions: TransactionRow[];
  next_cursor: string | null;
}

const pageSize = 10;

/** Recent activity from GET /proxy/<token>/transactions, newest first, paged by its cursor. */
export function RequestsTable({ token }: { token: string }) {
  // cursors[i] is the `before` that loads page i; page 0 has none.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  // The page shown is the one loaded for the current cursor, never a neighbour still on screen.
  const [loaded, setLoaded] = useState<{ index: number; page: Page } | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const index = cursors.length - 1;
  const page = loaded?.index === index ? loaded.page : undefined;

  const load = useCallback(
    async (pageIndex: number, before: string | undefined, isCurrent: () => boolean) => {
      setError(undefined);
      const query = new URLSearchParams({ limit: String(pageSize) });
      if (before !== undefined) query.set("before", before);
      try {
        const response = await fetch(`/proxy/${token}/transactions?${query}`, { cache: "no-store" });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const body = (await response.json()) as Page;
        if (isCurrent()) setLoaded({ index: pageIndex, page: body });
      } catch (caught) {
        if (!isCurrent()) return;
        setError(`Could not load activity: ${caught instanceof Error ? caught.message : "unknown error"}`);
      }
    },
    [token],
  );

  useEffect(() => {
    // A response for a page the user already left must not overwrite the one they are on.
    let current = true;
    void load(cursors.length - 1, cursors[cursors.length - 1], () => current);
    return () => {
      current = false;
    };
  }, [cursors, load]);

  const rows = page?.transactions ?? [];
  return (
    <div className="dash-table-wrap">
      {error === undefined ? null : (
        <p className="dash-alert dash-alert--error" role="alert">
          {error}
        </p>
      )}
      <table className="dash-table" aria-busy={page === undefined}>
        <thead>
          <tr>
            <th scope="col">Time (UTC)</th>
            <th scope="col">What</th>
            <th scope="col" className="dash-table__num">
              Tokens in / out
            </th>
            <th scope="col" className="dash-table__num">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={4} className="dash-muted">
                {page === undefined ? "Loading…" : "No activity yet."}
              </td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr key={`${row.id}-${row.amount_microunits}`} data-kind={row.kind} data-id={row.id}>
                <td className="dash-table__time">{row.created_at.replace("T", " ").slice(0, 19)}</td>
                <td>
                  {row.kind === "inference" ? (
                    <code>{row.model ?? "request"}</code>
                  ) : (
                    <span>
                      {row.kind}
                      {row.reason ? <span className="dash-muted"> · {row.reason}</span> : null}
                    </span>
                  )}
                </td>
                <td className="dash-table__num">
                  {row.kind === "inference" ? `${row.input_tokens ?? 0} / ${row.output_tokens ?? 0}` : ""}
                </td>
                <td className={`dash-table__num ${row.amount_microunits < 0 ? "dash-debit" : "dash-credit"}`}>
                  {row.amount_microunits > 0 ? "+" : ""}
                  {formatUsd(row.amount_microunits)}
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
      <div className="dash-pager">
        <button
          type="button"
          className="dash-button"
          disabled={index === 0}
          onClick={() => setCursors((list) => list.slice(0, -1))}
        >
          Newer
        </button>
        <span className="dash-muted">Page {index + 1}</span>
        <button
          type="button"
          className="dash-button"
          disabled={!page?.next_cursor}
          onClick={() => {
            const next = page?.next_cursor;
            if (next) setCursors((list) => [...list, next]);
          }}
        >
          Older
        </button>
      </div>
    </div>
  );
}
