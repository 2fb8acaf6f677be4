import { desc, eq } from "drizzle-orm";
import type { Executor } from "../db/client";
import { operatorActions } from "../db/schema";
import type { ApiRequest } from "../http/api-request";

/** A name an operator goes by in the logs: letters, digits, spaces and `._@-`, 1 to 60 of them. */
const operatorNamePattern = /^[\p{L}\p{N} ._@-]{1,60}$/u;

/** The header an admin API caller names itself in (the console sets it from its signed session). */
export const operatorHeader = "x-pod-operator";

/** What the admin token names when its caller says no name: the token, not a person. */
const unnamedOperator = "admin-token";

export function parseOperatorName(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const name = value.trim();
  return operatorNamePattern.test(name) ? name : undefined;
}

/** Who an admin request is from, for the logs: its `x-pod-operator` name, or "admin-token". */
export function operatorOf(request: ApiRequest): string {
  return parseOperatorName(request.headers.get(operatorHeader)) ?? unnamedOperator;
}

export type OperatorAction =
  | "host_suspend"
  | "host_activate"
  | "host_slash"
  | "payout_approve"
  | "credit"
  | "catalog_refresh";

export interface OperatorActionInput {
  operator: string;
  action: OperatorAction;
  subject: string;
  detail?: Record<string, unknown>;
}

/** One audit row; pass the transaction the action itself ran in where there is one. */
export async function recordOperatorAction(executor: Executor, input: OperatorActionInput): Promise<void> {
  await executor.insert(operatorActions).values({
    operator: input.operator,
    action: input.action,
    subject: input.subject,
    detail: input.detail ?? {},
  });
}

export interface OperatorActionRow {
  id: bigint;
  operator: string;
  action: string;
  subject: string;
  detail: Record<string, unknown>;
  createdAt: Date;
}

/** The newest actions first, of one kind when `action` is given. */
export async function listOperatorActions(
  executor: Executor,
  limit: number,
  action?: OperatorAction,
): Promise<OperatorActionRow[]> {
  return executor
    .select()
    .from(operatorActions)
    .where(action === undefined ? undefined : eq(operatorActions.action, action))
    .orderBy(desc(operatorActions.id))
    .limit(limit);
}
