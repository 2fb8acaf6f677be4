"use client";

import type { HostTransaction } from "@pod-gateway/contracts/host-api";
import { useEffect, useState } from "react";
import { ErrorAlert } from "./error-alert";
import { formatUsd, formatUtc } from "./format";
import { loadAllTransactions, loadTransactions, transactionsCsv } from "./provider-api";
import { ReceiptLink } from "./receipt-link";
import { ScrollRegion } from "./scroll-region";
import { TableHead } from "./table-head";

/** Ledger kinds as the operator reads them. */
const kindNames: Record<string, string> = {
  inference: "Job earning",
  host_withdrawal_requested: "Withdrawal",
  host_payout_failed: "Withdrawal returned (payout failed)",
  host_slash: "Slashed",
};

function kindName(kind: string): string {
  const name = kindNames[kind] ?? kind.replaceAll("_", " ");
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * Per-request earnings and withdrawals, newest first, a page at a time, with the date each
 * earning becomes withdrawable, and the whole ledger as CSV.
 */
export function EarningsTable({
  token,
  first,
  firstNextBefore,
  maturitySeconds,
  now,
}: {
  token: string;
  first: HostTransaction[];
  firstNextBefore: string | null;
  maturitySeconds: number;
  now: number;
}) {
  const [older, setOlder] = useState<HostTransaction[]>([]);
  const [nextBefore, setNextBefore] = useState<string | null>(firstNextBefore);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  // A refresh of the first page starts the paging again.
  useEffect(() => {
    setOlder([]);
    setNextBefore(firstNextBefore);
  }, [firstNextBefore]);

  const rows = [...first, ...older];

  async function more() {
    if (nextBefore === null) return;
    setBusy(true);
    try {
      const page = await loadTransactions(token, nextBefore);
      setOlder((current) => [...current, ...page.data]);
      setNextBefore(page.next_before);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "could not load older entries");
    } finally {
      setBusy(false);
    }
  }

  async function exportCsv() {
    setBusy(true);
    try {
      const csv = transactionsCsv(await loadAllTransactions(token));
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([csv], { type: "text/csv" }));
      link.download = `pod-earnings-${new Date().toISOString().slice(0, 10)}.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "the export failed");
    } finally {
      setBusy(false);
    }
  }

  const withdrawableFrom = (row: HostTransaction) => {
    if (row.amount_microunits <= 0) return "";
    const at = Date.parse(row.created_at) + maturitySeconds * 1000;
    return at <= now ? "withdrawable" : `from ${formatUtc(at).slice(0, 16)} UTC`;
  };

  return (
    <section className="dash-card" aria-labelledby="ledger-title">
      <div className="dash-card__head">
        <h2 id="ledger-title">Earnings per request</h2>
        <button
          type="button"
          className="dash-button"
          onClick={() => void exportCsv()}
          disabled={busy || rows.length === 0}
        >
          Export CSV
        </button>
      </div>
      {rows.length === 0 ? (
        <p className="dash-muted">
          No earnings yet: each job your agent serves is listed here once it settles.
        </p>
      ) : (
        <ScrollRegion label="Earnings">
          <table className="dash-table" data-testid="earnings-table">
            <TableHead
              columns={["Time (UTC)", "What", "Model", "Request", { numeric: "Amount" }, "Withdrawable"]}
            />
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.id}-${row.created_at}`}>
                  <td className="dash-table__time">{formatUtc(row.created_at)}</td>
                  <td>{kindName(row.kind)}</td>
                  <td>{row.model ?? ""}</td>
                  <td>
                    {row.request_id ? <code title={row.request_id}>{row.request_id.slice(0, 12)}…</code> : ""}
                    {row.receipt && row.request_id ? (
                      <>
                        {" "}
                        <ReceiptLink jws={row.receipt} requestId={row.request_id} />
                      </>
                    ) : null}
                  </td>
                  <td className={`dash-table__num${row.amount_microunits > 0 ? " dash-credit" : ""}`}>
                    {formatUsd(row.amount_microunits, { precise: true })}
                  </td>
                  <td>{withdrawableFrom(row)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {nextBefore === null ? null : (
        <div className="dash-pager">
          <button type="button" className="dash-button" onClick={() => void more()} disabled={busy}>
            Older entries
          </button>
        </div>
      )}
      <ErrorAlert message={error} />
    </section>
  );
}
