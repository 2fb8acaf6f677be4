import Link from "next/link";
import { formatUsd, formatUtc } from "@/components/dashboard/format";
import { ScrollRegion } from "@/components/dashboard/scroll-region";
import { TableHead } from "@/components/dashboard/table-head";
import { solanaExplorerTxUrl } from "@/lib/chains/solana/explorer-url";
import { listConsolePayouts } from "@/lib/operator-console/console-reads";
import { ActionButton } from "./action-button";
import type { OperatorConsoleSession } from "./operator-console-session";

/** Host payouts: those awaiting approval first (approve), then the rest with their transactions. */
export async function PayoutsView({ session }: { session: OperatorConsoleSession }) {
  const payouts = await listConsolePayouts(session.app.database.db);
  const waiting = payouts.filter((payout) => payout.status === "awaiting_approval").length;
  return (
    <section className="dash-section" aria-labelledby="payouts-title">
      <h2 id="payouts-title">Payouts</h2>
      <p className="dash-muted">
        {waiting === 0 ? "None awaits approval." : `${waiting} await${waiting === 1 ? "s" : ""} approval.`} A
        withdrawal above the review threshold waits here; approved, it is signed and sent on the next upkeep
        pass.
      </p>
      {payouts.length === 0 ? (
        <p className="dash-muted">No payouts yet.</p>
      ) : (
        <ScrollRegion label="Payouts">
          <table className="dash-table" data-testid="operator-payouts">
            <TableHead
              columns={[
                "Requested (UTC)",
                "Host",
                "Kind",
                { numeric: "Amount" },
                "State",
                "To",
                "Transaction",
              ]}
            />
            <tbody>
              {payouts.map((payout) => (
                <tr key={payout.id} id={`payout-${payout.id}`} data-status={payout.status}>
                  <td className="dash-table__time">{formatUtc(payout.createdAt)}</td>
                  <td>
                    <Link href={`/dashboard/admin/hosts/${payout.hostId}`}>{payout.hostName}</Link>
                  </td>
                  <td>{payout.kind === "bond_return" ? "bond return" : "withdrawal"}</td>
                  <td className="dash-table__num">{formatUsd(payout.amount)}</td>
                  <td>
                    {payout.status === "awaiting_approval" ? (
                      <ActionButton path={`payouts/${payout.id}/approve`} label="Approve" done="Approved." />
                    ) : (
                      <>
                        {payout.status.replace("_", " ")}
                        {payout.error ? <span className="dash-muted dash-block">{payout.error}</span> : null}
                      </>
                    )}
                  </td>
                  <td>
                    <code title={payout.destination}>{payout.destination.slice(0, 8)}…</code>
                  </td>
                  <td>
                    {payout.signature ? (
                      <a
                        href={solanaExplorerTxUrl(session.app.env.SOLANA_NETWORK, payout.signature)}
                        target="_blank"
                        rel="noreferrer"
                      >
                        {payout.signature.slice(0, 10)}…
                      </a>
                    ) : (
                      <span className="dash-muted">not sent</span>
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
