import { formatUsd, formatUtc } from "@/components/dashboard/format";
import { ScrollRegion } from "@/components/dashboard/scroll-region";
import { TableHead } from "@/components/dashboard/table-head";
import { upstreamExcessPrefix } from "@/lib/ledger/accounts";
import { listOpenReceivables, listSystemAccounts } from "@/lib/operator-console/console-reads";
import { explainDifference } from "@/lib/operator-console/explain-difference";
import { reportJson } from "@/lib/reconcile/core/reconcile-report";
import { reconcile } from "@/lib/reconcile/reconcile";
import { CostsSection } from "./costs-section";
import type { OperatorConsoleSession } from "./operator-console-session";

/** What an account of the gateway's own is for, where the name alone does not say. */
const accountWords: Record<string, string> = {
  "treasury:treasury": "the gateway's share of every request",
  "external:admin-credits": "operator credits (negative: what was given)",
  "external:stripe": "card payments in and refunds out",
  "external:solana-usdc-deposits": "USDC deposited on Solana",
  "external:inference-loss": "usage no balance could cover: the operator's loss",
  "suspense:solana-deposits": "deposits not yet matched to a token",
  "external:solana-deposit-refunds": "unmatched deposits sent back",
  "external:solana-payouts": "USDC paid out to hosts on Solana",
  "payout:in-flight": "withdrawals and bond returns approved and on their way to the chain",
  "suspense:slash-refund-pool": "slashed money on its way back to callers (empty after every slash)",
  "external:verification-budget": "the verification budget (negative: what canaries and answer scoring drew)",
  "suspense:canary-caller": "the caller canary jobs are billed to, topped up from the verification budget",
};

/** What an account is for: by its name, or by its kind of name (one scoring account per host). */
function accountWord(kind: string, ref: string): string {
  if (kind === "suspense" && ref.startsWith("verification:")) return "what scoring this host's answers cost";
  if (kind === "external" && ref.startsWith(upstreamExcessPrefix))
    return "what this upstream billed beyond what callers were charged (negative)";
  return accountWords[`${kind}:${ref}`] ?? "";
}

/**
 * The books: the reconcile report with each difference explained, losses and costs, receivables
 * and the system accounts.
 */
export async function MoneyView({ session }: { session: OperatorConsoleSession }) {
  const db = session.app.database.db;
  const [report, owed, accounts] = await Promise.all([
    reconcile(session.app).then(reportJson),
    listOpenReceivables(db),
    listSystemAccounts(db),
  ]);
  // A ledger finding names an account by id: the gateway's own are named by what they are.
  const accountNames = new Map(
    accounts.map((account) => [
      account.id.toString(),
      `${account.kind}:${account.ref} (account ${account.id})`,
    ]),
  );
  return (
    <>
      <section className="dash-section" aria-labelledby="reconcile-title">
        <h2 id="reconcile-title">Reconcile</h2>
        <p
          className={`dash-alert ${report.reconciled ? "dash-alert--ok" : "dash-alert--warn"}`}
          data-testid="reconcile-verdict"
        >
          {report.reconciled
            ? `The books agree with ${report.checked.join(", ")}.`
            : `${report.differences.length} difference${report.differences.length === 1 ? "" : "s"}${
                report.unexplained_microunits === "0"
                  ? ""
                  : `, ${formatUsd(BigInt(report.unexplained_microunits))} unexplained`
              }.`}
        </p>
        {report.differences.length === 0 ? null : (
          <ScrollRegion label="Reconcile differences">
            <table className="dash-table" data-testid="reconcile-differences">
              <TableHead columns={["Source", "About", { numeric: "Source − ledger" }, "What it means"]} />
              <tbody>
                {report.differences.map((difference) => (
                  <tr
                    key={`${difference.source}-${difference.reference}-${difference.detail}`}
                    data-source={difference.source}
                  >
                    <td>{difference.source}</td>
                    <td>
                      <code className="dash-wrap">
                        {accountNames.get(difference.reference) ?? difference.reference}
                      </code>
                    </td>
                    <td className="dash-table__num">
                      {difference.microunits === "0"
                        ? "not an amount"
                        : formatUsd(BigInt(difference.microunits))}
                    </td>
                    <td className="dash-wrap">
                      <span data-testid="difference-meaning">{explainDifference(difference)}</span>
                      <span className="dash-muted dash-block">{difference.detail}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        )}
        {report.unreadable.length === 0 ? null : (
          <>
            <p className="dash-alert dash-alert--warn">Could not be read, so nothing about them is proven:</p>
            <ul className="dash-setup" data-testid="reconcile-unreadable">
              {report.unreadable.map((source) => (
                <li key={source.source}>
                  <strong>{source.source}</strong>: {source.reason}
                </li>
              ))}
            </ul>
          </>
        )}
        {report.skipped.length === 0 ? null : (
          <>
            <p className="dash-muted">Not compared:</p>
            <ul className="dash-setup">
              {report.skipped.map((reason) => (
                <li key={reason} className="dash-muted">
                  {reason}
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <CostsSection session={session} />
      <section className="dash-section" aria-labelledby="receivables-title">
        <h2 id="receivables-title">Receivables</h2>
        {owed.length === 0 ? (
          <p className="dash-muted">Nobody owes: every refund and dispute was covered by its balance.</p>
        ) : (
          <ScrollRegion label="Receivables">
            <table className="dash-table" data-testid="receivables">
              <TableHead
                columns={["Since (UTC)", "Account", "Why", { numeric: "Owed" }, { numeric: "Of" }]}
              />
              <tbody>
                {owed.map((row) => (
                  <tr key={row.id.toString()}>
                    <td className="dash-table__time">{formatUtc(row.createdAt)}</td>
                    <td>{row.accountId.toString()}</td>
                    <td>
                      {row.source.replace("_", " ")} <code>{row.reference}</code>
                    </td>
                    <td className="dash-table__num">{formatUsd(row.outstandingMicrounits)}</td>
                    <td className="dash-table__num">{formatUsd(row.amountMicrounits)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        )}
      </section>
      <section className="dash-section" aria-labelledby="accounts-title">
        <h2 id="accounts-title">The gateway's accounts</h2>
        <p className="dash-muted">
          Every account of the gateway's own in the ledger. Outside-world accounts go negative by what came in
          from there, or by what the operator bore (losses, upstream excess, verification).
        </p>
        <ScrollRegion label="System accounts">
          <table className="dash-table" data-testid="system-accounts">
            <TableHead columns={["Account", { numeric: "Balance" }, "What it is"]} />
            <tbody>
              {accounts.map((account) => (
                <tr key={`${account.kind}:${account.ref}`} data-account={`${account.kind}:${account.ref}`}>
                  <td className="dash-table__account">
                    <code>
                      {account.kind}:{account.ref}
                    </code>
                  </td>
                  <td className="dash-table__num">{formatUsd(account.balance)}</td>
                  <td className="dash-wrap">{accountWord(account.kind, account.ref)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </section>
    </>
  );
}
