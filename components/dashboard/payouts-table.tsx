import type { HostPayout } from "@pod-gateway/contracts/host-api";
import { formatUsd, formatUtc } from "./format";
import { ScrollRegion } from "./scroll-region";
import { TableHead } from "./table-head";

/** Payout states as the operator reads them. */
const statusText: Record<string, string> = {
  awaiting_approval: "Held for the operator's review",
  requested: "Queued",
  broadcast: "Sent, confirming",
  confirmed: "Paid",
  failed: "Failed, returned to the balance",
};

/** The host's payouts (withdrawals and a returned bond), newest first, with their transactions. */
export function PayoutsTable({ payouts }: { payouts: HostPayout[] }) {
  return (
    <section className="dash-card" aria-labelledby="payouts-title">
      <h2 id="payouts-title">Payouts</h2>
      {payouts.length === 0 ? (
        <p className="dash-muted">No payouts yet.</p>
      ) : (
        <ScrollRegion label="Payouts">
          <table className="dash-table" data-testid="payouts-table">
            <TableHead columns={["Requested (UTC)", { numeric: "Amount" }, "State", "To", "Transaction"]} />
            <tbody>
              {payouts.map((payout) => (
                <tr key={payout.id} data-status={payout.status}>
                  <td className="dash-table__time">{formatUtc(payout.created_at)}</td>
                  <td className="dash-table__num">
                    {formatUsd(payout.amount_microunits, { precise: true })}
                  </td>
                  <td>
                    {statusText[payout.status] ?? payout.status}
                    {payout.error ? `: ${payout.error}` : ""}
                  </td>
                  <td>
                    <code title={payout.destination}>
                      {payout.destination.slice(0, 4)}…{payout.destination.slice(-4)}
                    </code>
                  </td>
                  <td>
                    {payout.explorer_url && payout.signature ? (
                      <a href={payout.explorer_url} target="_blank" rel="noreferrer">
                        {payout.signature.slice(0, 8)}…
                      </a>
                    ) : (
                      "not sent yet"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
