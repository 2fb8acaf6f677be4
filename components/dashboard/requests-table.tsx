"use client";

import {
  type ActivityFilter,
  activityKindNames,
  routeNames,
  type TransactionRow,
  type TransactionsPage,
} from "@pod-gateway/contracts/activity";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import { ErrorAlert } from "./error-alert";
import { formatUsd } from "./format";
import { ReceiptLink } from "./receipt-link";
import { ScrollRegion } from "./scroll-region";
import { TableHead } from "./table-head";

const pageSize = 10;

type Route = keyof typeof routeNames;

function query(filter: ActivityFilter, extra: Record<string, string> = {}): URLSearchParams {
  const params = new URLSearchParams(extra);
  if (filter.kind) params.set("kind", filter.kind);
  if (filter.model) params.set("model", filter.model);
  if (filter.route) params.set("route", filter.route);
  return params;
}

/** Where a request went, in words: "Marketplace · host_ab12", "Centralized · openai". */
function servedBy(row: TransactionRow): string {
  const route = row.route && row.route in routeNames ? routeNames[row.route as Route] : row.route;
  return [route, row.provider_id].filter(Boolean).join(" · ");
}

/**
 * Recent activity from GET /proxy/<token>/transactions, newest first, paged by its cursor:
 * each request with its route, provider and key, credits in words with their receipt,
 * filters by kind, model and route, a CSV export of what the filters select, and a refresh
 * that reloads the table and the numbers above it without reloading the page.
 */
export function RequestsTable({ token, models }: { token: string; models: string[] }) {
  const router = useRouter();
  const [filter, setFilter] = useState<ActivityFilter>({});
  // cursors[i] is the `before` that loads page i; page 0 has none.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  // The page shown is the one loaded for the current cursor, never a neighbour still on screen.
  const [loaded, setLoaded] = useState<{ index: number; page: TransactionsPage } | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [refreshedAt, setRefreshedAt] = useState<string | undefined>(undefined);
  const [generation, setGeneration] = useState(0);
  const index = cursors.length - 1;
  const page = loaded?.index === index ? loaded.page : undefined;

  const load = useCallback(
    async (
      pageIndex: number,
      before: string | undefined,
      current: ActivityFilter,
      isCurrent: () => boolean,
    ) => {
      setError(undefined);
      const params = query(current, { limit: String(pageSize) });
      if (before !== undefined) params.set("before", before);
      try {
        const response = await fetch(`/proxy/${token}/transactions?${params}`, { cache: "no-store" });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const body = (await response.json()) as TransactionsPage;
        if (isCurrent()) {
          setLoaded({ index: pageIndex, page: body });
          setRefreshedAt(new Date().toISOString().slice(11, 19));
        }
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
    void generation;
    void load(cursors.length - 1, cursors[cursors.length - 1], filter, () => current);
    return () => {
      current = false;
    };
  }, [cursors, filter, load, generation]);

  const choose = (next: ActivityFilter) => {
    setFilter(next);
    setCursors([undefined]);
    setLoaded(undefined);
  };

  const refresh = () => {
    setGeneration((value) => value + 1);
    // The balance and spend above are server-rendered: refetched too, without a page load.
    router.refresh();
  };

  const rows = page?.transactions ?? [];
  return (
    <ScrollRegion label="Requests" className="dash-table-wrap dash-activity">
      <fieldset className="dash-filters">
        <legend className="visually-hidden">Filter activity</legend>
        <label className="dash-filter">
          <span className="dash-label">Kind</span>
          <select
            className="dash-input"
            value={filter.kind ?? ""}
            onChange={(event) => choose({ ...filter, kind: event.target.value || undefined })}
          >
            <option value="">Everything</option>
            {Object.entries(activityKindNames).map(([kind, name]) => (
              <option key={kind} value={kind}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="dash-filter">
          <span className="dash-label">Model</span>
          <select
            className="dash-input"
            value={filter.model ?? ""}
            onChange={(event) => choose({ ...filter, model: event.target.value || undefined })}
          >
            <option value="">Any model</option>
            {models.map((model) => (
              <option key={model} value={model}>
                {model}
              </option>
            ))}
          </select>
        </label>
        <label className="dash-filter">
          <span className="dash-label">Route</span>
          <select
            className="dash-input"
            value={filter.route ?? ""}
            onChange={(event) =>
              choose({ ...filter, route: (event.target.value || undefined) as Route | undefined })
            }
          >
            <option value="">Any route</option>
            {(Object.keys(routeNames) as Route[]).map((route) => (
              <option key={route} value={route}>
                {routeNames[route]}
              </option>
            ))}
          </select>
        </label>
        <div className="dash-filter-actions">
          <button type="button" className="dash-button" onClick={refresh}>
            Refresh
          </button>
          <a className="dash-button" href={`/proxy/${token}/transactions/export?${query(filter)}`} download>
            Export CSV
          </a>
        </div>
      </fieldset>
      <ErrorAlert message={error} />
      <table className="dash-table" aria-busy={page === undefined}>
        <TableHead columns={["Time (UTC)", "What", { numeric: "Tokens in / out" }, { numeric: "Amount" }]} />
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={4} className="dash-muted">
                {page === undefined
                  ? "Loading…"
                  : filter.kind || filter.model || filter.route
                    ? "Nothing matches these filters."
                    : "No activity yet."}
              </td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr key={`${row.id}-${row.amount_microunits}`} data-kind={row.kind} data-id={row.id}>
                <td className="dash-table__time">{row.created_at.replace("T", " ").slice(0, 19)}</td>
                <td>
                  {row.kind === "inference" ? (
                    <>
                      <code>{row.model ?? "request"}</code>
                      <span className="dash-muted dash-block" data-testid="served-by">
                        {servedBy(row)}
                        {row.api_key ? ` · key “${row.api_key}”` : ""}
                        {row.receipt && row.request_id ? (
                          <>
                            {" · "}
                            <ReceiptLink jws={row.receipt} requestId={row.request_id} />
                          </>
                        ) : null}
                      </span>
                    </>
                  ) : (
                    <span>
                      {row.label}
                      {/* The reason only when it adds to the label ("Auto top-up (card) · auto top-up" said it twice). */}
                      {row.reason && !row.label.toLowerCase().includes(row.reason.toLowerCase()) ? (
                        <span className="dash-muted"> · {row.reason}</span>
                      ) : null}
                      {row.receipt_url ? (
                        <>
                          {" · "}
                          <a href={row.receipt_url} target="_blank" rel="noreferrer">
                            Receipt
                          </a>
                        </>
                      ) : null}
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
        <span className="dash-muted">
          Page {index + 1}
          {refreshedAt ? ` · updated ${refreshedAt} UTC` : ""}
        </span>
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
    </ScrollRegion>
  );
}
