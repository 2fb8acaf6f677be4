/**
 * The progress list a wallet deposit shows: each step done, active or still to come, with
 * "credited" as the last. `step` is the current step, "failed" (nothing marked) or "idle" (hidden).
 */
export function DepositSteps<S extends string>({
  step,
  order,
  labels,
}: {
  step: S | "idle" | "failed";
  order: readonly S[];
  labels: Record<S, string>;
}) {
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
