import { CopyButton } from "./copy-button";
import { ErrorAlert } from "./error-alert";
import { formatUsd } from "./format";

/** Where a transfer is: `step` is the current one, "failed" (nothing marked) or "idle" (no list). */
interface Steps<S extends string> {
  step: S | "idle" | "failed";
  order: readonly S[];
  labels: Record<S, string>;
}

/**
 * How a transfer from a wallet (a deposit, a host's bond) is going: the steps done, active or
 * still to come, the transaction once there is one, the new balance, and what went wrong.
 */
export function TransferProgress<S extends string>({
  step,
  order,
  labels,
  transaction,
  credited,
  error,
}: Steps<S> & {
  /** Shown shortened to `shown` characters; `copy` where the person may need it whole. */
  transaction: { id: string; shown: number; testId: string; copy?: boolean } | undefined;
  /** The balance after a deposit was credited (microunits). */
  credited?: { balance: number; testId: string } | undefined;
  error: string | undefined;
}) {
  return (
    <>
      <TransferSteps step={step} order={order} labels={labels} />
      {transaction === undefined ? null : (
        <p className="dash-muted">
          Transaction{" "}
          <code data-testid={transaction.testId}>{transaction.id.slice(0, transaction.shown)}…</code>
          {transaction.copy ? (
            <>
              {" "}
              <CopyButton text={transaction.id} label="Copy transaction signature" />
            </>
          ) : null}
        </p>
      )}
      {credited === undefined ? null : (
        <p className="dash-alert dash-alert--ok" role="status">
          Credited. New balance: <strong data-testid={credited.testId}>{formatUsd(credited.balance)}</strong>
        </p>
      )}
      <ErrorAlert message={error} />
    </>
  );
}

function TransferSteps<S extends string>({ step, order, labels }: Steps<S>) {
  if (step === "idle") return null;
  const reached = step === "failed" ? -1 : order.indexOf(step as S);
  const finished = order.length > 0 && step === order[order.length - 1];
  return (
    <ol className="dash-steps" aria-live="polite" data-step={step}>
      {order.map((entry, index) => {
        const state = index < reached || finished ? "done" : index === reached ? "active" : "todo";
        return (
          <li key={entry} data-state={state}>
            <span aria-hidden="true">{state === "done" ? "✓" : state === "active" ? "●" : "○"}</span>
            {labels[entry]}
          </li>
        );
      })}
    </ol>
  );
}
