import type { OperatorNoticeEvent, OperatorNoticeKind } from "@pod-gateway/contracts/operator-console";
import { and, desc, eq, isNull } from "drizzle-orm";
import { postSignedWebhook } from "../balance-watch/send-balance-alert";
import type { Executor } from "../db/client";
import { hostPayouts, hosts, operatorNotices } from "../db/schema";
import type { LedgerServices } from "../ledger/ledger-services";
import { acquireLease } from "../maintenance-lease";
import { reportJson } from "../reconcile/core/reconcile-report";
import { reconcile } from "../reconcile/reconcile";
import type { RoutingState } from "../routing/routing-state";
import type { Services } from "../services";
import { loadReputations } from "../trust/reputation";
import type { AgentAbsence } from "./agent-absence";

/**
 * What the operator is told, on the console and at OPERATOR_WEBHOOK_URL: a payout awaiting
 * approval, a host demoted or excluded, an active host whose agent has been away longer than
 * OPERATOR_AGENT_OFFLINE_SECONDS, and a reconcile difference. Each condition opens one notice
 * row (the webhook is sent once, by the replica whose insert wins) and the row is resolved when
 * the condition clears; a new episode is a new notice.
 */

export interface OperatorNotice {
  kind: OperatorNoticeKind;
  subject: string;
  text: string;
  /** The console page about it. */
  href: string;
  since: Date;
  delivery: string | null;
}

export type NoticeServices = Services &
  Pick<LedgerServices, "leases"> & { routing: Pick<RoutingState, "registry"> };

type Condition = Pick<OperatorNotice, "kind" | "subject" | "text">;

const hrefOf = (kind: OperatorNoticeKind, subject: string): string =>
  kind === "payout_awaiting_approval"
    ? `/dashboard/admin/payouts#payout-${subject}`
    : kind === "reconcile_difference"
      ? "/dashboard/admin/money"
      : `/dashboard/admin/hosts/${subject}`;

const key = (condition: { kind: string; subject: string }) => `${condition.kind} ${condition.subject}`;

/** Payouts awaiting approval and hosts demoted or excluded: true now, no clock needed. */
async function standingConditions(executor: Executor): Promise<Condition[]> {
  const conditions: Condition[] = [];
  const waiting = await executor
    .select({ id: hostPayouts.id, amount: hostPayouts.amount, host: hosts.displayName })
    .from(hostPayouts)
    .innerJoin(hosts, eq(hosts.id, hostPayouts.hostId))
    .where(eq(hostPayouts.status, "awaiting_approval"));
  for (const payout of waiting)
    conditions.push({
      kind: "payout_awaiting_approval",
      subject: payout.id,
      text: `A payout of ${formatUsdc(payout.amount)} USDC to ${payout.host} awaits approval`,
    });
  const enrolled = await executor
    .select({ id: hosts.id, name: hosts.displayName, status: hosts.status })
    .from(hosts);
  const live = enrolled.filter((host) => host.status !== "retired");
  const reputations = await loadReputations(
    executor,
    live.map((host) => host.id),
  );
  for (const host of live) {
    const reputation = reputations.get(host.id);
    if (!reputation || reputation.standing === "good") continue;
    conditions.push({
      kind: reputation.standing === "excluded" ? "host_excluded" : "host_demoted",
      subject: host.id,
      text: `Host ${host.name} is ${reputation.standing}: ${reputation.reasons.join("; ")}`,
    });
  }
  return conditions;
}

const formatUsdc = (microunits: bigint) => {
  const whole = microunits / 1_000_000n;
  const fraction = (microunits % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
};

export interface NoticeState {
  absence: AgentAbsence;
  /** When this process last reconciled (ms); undefined: not yet. */
  lastReconcileAt?: number;
}

async function absenceConditions(app: NoticeServices, state: NoticeState, now: number): Promise<Condition[]> {
  const active = await app.database.db
    .select({ id: hosts.id, name: hosts.displayName, lastSeen: hosts.agentLastSeenAt })
    .from(hosts)
    .where(eq(hosts.status, "active"));
  const recorded = new Map(
    active.flatMap((host) => (host.lastSeen ? [[host.id, host.lastSeen] as const] : [])),
  );
  const connected = new Map(
    app.routing.registry.agents().map((agent) => [agent.providerId, agent.lastSeenAt] as const),
  );
  const away = state.absence.observe(
    active.map((host) => host.id),
    connected,
    now,
    recorded,
  );
  const limitMs = app.env.OPERATOR_AGENT_OFFLINE_SECONDS * 1000;
  return active.flatMap((host) => {
    const absence = away.get(host.id);
    if (absence === undefined || now - absence.since < limitMs) return [];
    const at = `${new Date(absence.since).toISOString().replace("T", " ").slice(0, 19)} UTC`;
    return [
      {
        kind: "agent_disconnected" as const,
        subject: host.id,
        text: absence.heard
          ? `Host ${host.name}'s agent was last heard at ${at} and is not connected`
          : `Host ${host.name}'s agent has not been connected since ${at} (not heard since this gateway started)`,
      },
    ];
  });
}

const reconcileLease = "operator-reconcile";

/** The reconcile's difference, when one is due (undefined: not run this pass). */
async function reconcileCondition(
  app: NoticeServices,
  state: NoticeState,
  now: number,
  holder: string,
): Promise<Condition[] | undefined> {
  const minutes = app.env.OPERATOR_RECONCILE_MINUTES;
  if (minutes === 0) return undefined;
  if (state.lastReconcileAt !== undefined && now - state.lastReconcileAt < minutes * 60_000) return undefined;
  state.lastReconcileAt = now;
  // One replica per period: the lease lasts the period and is not given back.
  if (!(await acquireLease(app.database.db, reconcileLease, holder, minutes * 60))) return undefined;
  const report = reportJson(await reconcile(app));
  if (report.reconciled) return [];
  const first = report.differences[0];
  return [
    {
      kind: "reconcile_difference",
      subject: "books",
      text: `Reconcile found ${report.differences.length} difference(s), ${formatUsdc(BigInt(report.unexplained_microunits))} USDC unexplained${first ? `; first: ${first.source} ${first.reference}: ${first.detail}` : ""}`,
    },
  ];
}

/**
 * One pass: opens a notice for each new condition (and sends its webhook), resolves those that
 * cleared. A reconcile notice is resolved only by a clean reconcile.
 */
export async function runOperatorNotices(
  app: NoticeServices,
  state: NoticeState,
  options: { now?: Date; holder: string },
): Promise<{ opened: OperatorNotice[]; resolved: number }> {
  const now = (options.now ?? new Date()).getTime();
  const db = app.database.db;
  const reconciled = await reconcileCondition(app, state, now, options.holder);
  const conditions = [
    ...(await standingConditions(db)),
    ...(await absenceConditions(app, state, now)),
    ...(reconciled ?? []),
  ];
  const open = await db.select().from(operatorNotices).where(isNull(operatorNotices.resolvedAt));
  const openKeys = new Set(open.map(key));
  const currentKeys = new Set(conditions.map(key));
  let resolved = 0;
  for (const row of open) {
    if (currentKeys.has(key(row))) continue;
    if (row.kind === "reconcile_difference" && reconciled === undefined) continue;
    await db
      .update(operatorNotices)
      .set({ resolvedAt: new Date(now) })
      .where(and(eq(operatorNotices.id, row.id), isNull(operatorNotices.resolvedAt)));
    resolved += 1;
  }
  const opened: OperatorNotice[] = [];
  for (const condition of conditions) {
    if (openKeys.has(key(condition))) continue;
    const [row] = await db
      .insert(operatorNotices)
      .values({ ...condition, createdAt: new Date(now) })
      .onConflictDoNothing()
      .returning();
    if (!row) continue;
    const delivery = await tellOperator(app, condition, row.createdAt);
    await db.update(operatorNotices).set({ delivery }).where(eq(operatorNotices.id, row.id));
    opened.push({
      ...condition,
      href: hrefOf(condition.kind, condition.subject),
      since: row.createdAt,
      delivery,
    });
  }
  return { opened, resolved };
}

async function tellOperator(app: Services, condition: Condition, at: Date): Promise<string> {
  const url = app.env.OPERATOR_WEBHOOK_URL;
  if (!url) return "no webhook configured";
  const secret = app.env.OPERATOR_WEBHOOK_SECRET;
  if (!secret) return "not sent: OPERATOR_WEBHOOK_SECRET is not set";
  const event: OperatorNoticeEvent = {
    type: "operator.notice",
    kind: condition.kind,
    subject: condition.subject,
    text: condition.text,
    console_url: `${(app.env.PUBLIC_BASE_URL ?? "").replace(/\/+$/, "")}${hrefOf(condition.kind, condition.subject)}`,
    created_at: at.toISOString(),
  };
  // The operator set this address: a private one (an internal relay) is allowed.
  return postSignedWebhook({ url, secret, allowPrivate: true }, event, {
    userAgent: "PodGateway-Operator/1",
  });
}

/**
 * What the console's "Needs you" lists: the open notices, and the conditions that need no clock
 * as they are this moment (a payout waiting, a host demoted), even before a notice pass ran.
 */
export async function listOperatorNotices(app: Services): Promise<OperatorNotice[]> {
  const db = app.database.db;
  const open = await db
    .select()
    .from(operatorNotices)
    .where(isNull(operatorNotices.resolvedAt))
    .orderBy(desc(operatorNotices.createdAt))
    .limit(200);
  const notices: OperatorNotice[] = open.map((row) => {
    const kind = row.kind as OperatorNoticeKind;
    return {
      kind,
      subject: row.subject,
      text: row.text,
      href: hrefOf(kind, row.subject),
      since: row.createdAt,
      delivery: row.delivery,
    };
  });
  const listed = new Set(notices.map(key));
  for (const condition of await standingConditions(db))
    if (!listed.has(key(condition)))
      notices.push({
        ...condition,
        href: hrefOf(condition.kind, condition.subject),
        since: new Date(),
        delivery: null,
      });
  return notices;
}

/** The open notices of one kind, by subject (the hosts whose agent is away, told). */
export async function openNoticesOf(
  executor: Executor,
  kind: OperatorNoticeKind,
): Promise<Map<string, { text: string; createdAt: Date }>> {
  const rows = await executor
    .select({
      subject: operatorNotices.subject,
      text: operatorNotices.text,
      createdAt: operatorNotices.createdAt,
    })
    .from(operatorNotices)
    .where(and(eq(operatorNotices.kind, kind), isNull(operatorNotices.resolvedAt)));
  return new Map(rows.map((row) => [row.subject, { text: row.text, createdAt: row.createdAt }]));
}
