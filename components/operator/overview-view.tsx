import Link from "next/link";
import { fundingSetup } from "@/lib/funding/funding-setup";
import { listOperatorNotices } from "@/lib/operator-console/operator-notices";
import { listOperatorActions } from "@/lib/operator-log/operator-actions";
import { OperatorActionsTable } from "./operator-actions-table";
import type { OperatorConsoleSession } from "./operator-console-session";

const fundingNames = { card: "Card (Stripe)", solana: "USDC on Solana", base: "USDC on Base" } as const;

/** The console's front page: what needs the operator, how funding is set up, and the audit log. */
export async function OverviewView({ session }: { session: OperatorConsoleSession }) {
  const db = session.app.database.db;
  const [notices, actions] = await Promise.all([
    listOperatorNotices(session.app),
    listOperatorActions(db, 30),
  ]);
  const setup = fundingSetup(session.app.env);
  return (
    <>
      <section className="dash-section" aria-labelledby="notices-title">
        <h2 id="notices-title">Needs you</h2>
        {notices.length === 0 ? (
          <p className="dash-muted">Nothing: no payout waits, every host is in good standing.</p>
        ) : (
          <ul className="dash-notices" data-testid="operator-notices">
            {notices.map((notice) => (
              <li key={`${notice.kind}-${notice.subject}`} data-kind={notice.kind}>
                <Link href={notice.href}>{notice.text}</Link>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="dash-section" aria-labelledby="funding-title">
        <h2 id="funding-title">Funding setup</h2>
        <p className="dash-muted">
          Which ways in this gateway offers, and the settings each still needs (names only).
        </p>
        <ul className="dash-setup" data-testid="funding-setup">
          {(Object.keys(fundingNames) as (keyof typeof fundingNames)[]).map((method) => (
            <li key={method} data-method={method} data-enabled={setup[method].enabled}>
              <strong>{fundingNames[method]}</strong>:{" "}
              {setup[method].enabled ? (
                <span className="dash-badge dash-badge--ok">configured</span>
              ) : (
                <>
                  <span className="dash-badge dash-badge--warn">not offered</span> missing{" "}
                  {setup[method].missing.map((name, index) => (
                    <span key={name}>
                      {index === 0 ? "" : ", "}
                      <code>{name}</code>
                    </span>
                  ))}{" "}
                  (<a href={setup[method].docs}>how</a>)
                </>
              )}
            </li>
          ))}
        </ul>
      </section>
      <section className="dash-section" aria-labelledby="audit-title">
        <h2 id="audit-title">Operator actions</h2>
        <OperatorActionsTable rows={actions} />
      </section>
    </>
  );
}
