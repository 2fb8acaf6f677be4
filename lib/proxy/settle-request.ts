import type { AppContext } from "../app-context";
import type { Executor } from "../db/client";
import { type AccountKind, ensureAccount, systemAccounts } from "../ledger/accounts";
import { settleInference } from "../ledger/settle-inference";
import { costOfUsage, type Usage } from "../pricing/cost";
import type { Candidate } from "../routing/candidate";

export type RequestOutcome = "completed" | "client_aborted" | "upstream_error" | "stream_cut";

export interface SettleRequestInput {
  requestId: string;
  accountId: bigint;
  holdId: string;
  candidate: Candidate;
  model: string;
  usage: Usage;
  outcome: RequestOutcome;
}

/** Provider share of marketplace and relay revenue, in percent; the treasury keeps the rest. */
export const providerSharePercent = 80n;

/** Account ids never change once created, so the hot path looks each one up once per process. */
const accountIds = new WeakMap<Executor, Map<string, bigint>>();

async function cachedAccountId(executor: Executor, kind: AccountKind, ref: string): Promise<bigint> {
  let perDatabase = accountIds.get(executor);
  if (!perDatabase) {
    perDatabase = new Map();
    accountIds.set(executor, perDatabase);
  }
  const key = `${kind}:${ref}`;
  const cached = perDatabase.get(key);
  if (cached !== undefined) return cached;
  const id = await ensureAccount(executor, kind, ref);
  if (perDatabase.size > 100_000) perDatabase.clear();
  perDatabase.set(key, id);
  return id;
}

/**
 * Charges the actual usage and releases the rest of the hold, in one statement.
 * Centralized revenue goes to the treasury; marketplace and relay revenue is split 80/20.
 */
export async function settleRequest(app: AppContext, input: SettleRequestInput) {
  const database = app.database.db;
  const treasuryAccountId = await cachedAccountId(
    database,
    systemAccounts.treasury.kind,
    systemAccounts.treasury.ref,
  );
  const providerAccountId =
    input.candidate.route === "centralized"
      ? undefined
      : await cachedAccountId(database, "provider", input.candidate.providerId);
  return settleInference(database, {
    holdId: input.holdId,
    accountId: input.accountId,
    cost: costOfUsage(input.usage, input.candidate.price),
    treasuryAccountId,
    ...(providerAccountId === undefined ? {} : { providerAccountId }),
    providerSharePercent,
    idempotencyKey: `inference:${input.requestId}`,
    metadata: {
      request_id: input.requestId,
      model: input.model,
      route: input.candidate.route,
      provider: input.candidate.providerId,
    },
    usageRecord: {
      requestId: input.requestId,
      model: input.model,
      route: input.candidate.route,
      providerId: input.candidate.providerId,
      usage: input.usage,
      outcome: input.outcome,
    },
  });
}
