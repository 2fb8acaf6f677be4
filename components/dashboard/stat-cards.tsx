import type { SpendSummary } from "@/lib/dashboard/queries";
import { formatUsd } from "./format";

/** Balance, held amount and spend, the numbers a person checks first. */
export function StatCards({ summary }: { summary: SpendSummary }) {
  const cards = [
    {
      id: "available",
      label: "Available balance",
      value: formatUsd(summary.available),
      hint: "What new requests can spend",
    },
    { id: "held", label: "Held", value: formatUsd(summary.held), hint: "Reserved by requests in flight" },
    ...(summary.owed > 0n
      ? [
          {
            id: "owed",
            label: "Owed",
            value: formatUsd(summary.owed),
            hint: "After a card refund or dispute: paid first from what comes free and your next funding",
          },
        ]
      : []),
    { id: "today", label: "Spent today", value: formatUsd(summary.spentToday), hint: "Since 00:00 UTC" },
    {
      id: "month",
      label: "Spent this month",
      value: formatUsd(summary.spentThisMonth),
      hint: `${summary.requestsThisMonth} request${summary.requestsThisMonth === 1 ? "" : "s"} this month (UTC)`,
    },
  ];
  return <StatList cards={cards} />;
}

/** A row of headline numbers, each under its label, with a line of context where it needs one. */
export function StatList({
  cards,
}: {
  cards: { id: string; label: string; value: string; hint?: string }[];
}) {
  return (
    <dl className="dash-stats">
      {cards.map((card) => (
        <div className="dash-stat" key={card.id} data-stat={card.id}>
          <dt>{card.label}</dt>
          <dd>
            <span className="dash-stat__value">{card.value}</span>
            {card.hint === undefined ? null : <span className="dash-stat__hint">{card.hint}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}
