import type { AppContext } from "../app-context";
import { usageRecords } from "../db/schema";
import { ensureAccount, systemAccounts } from "../ledger/accounts";
import { releaseHold, settleHold } from "../ledger/holds";
import type { LedgerEntryInput } from "../ledger/post-transaction";
import { costOfUsage, splitProviderShare, type Usage } from "../pricing/cost";
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

/**
 * Charges the actual usage and releases the rest of the hold, in one transaction.
 * Centralized revenue goes to the treasury; marketplace and relay revenue is split 80/20.
 */
export async function settleRequest(app: AppContext, input: SettleRequestInput) {
  const cost = costOfUsage(input.usage, input.candidate.price);
  const database = app.database.db;
  const treasuryId = await ensureAccount(database, systemAccounts.treasury.kind, systemAccounts.treasury.ref);
  const providerId =
    input.candidate.route === "centralized"
      ? undefined
      : await ensureAccount(database, "provider", input.candidate.providerId);
  return settleHold(database, {
    holdId: input.holdId,
    accountId: input.accountId,
    cost,
    kind: "inference",
    idempotencyKey: `inference:${input.requestId}`,
    metadata: {
      request_id: input.requestId,
      model: input.model,
      route: input.candidate.route,
      provider: input.candidate.providerId,
    },
    distribute: (charge): LedgerEntryInput[] => {
      if (providerId === undefined) return [{ accountId: treasuryId, amount: charge }];
      const share = splitProviderShare(charge);
      return [
        { accountId: providerId, amount: share.provider },
        { accountId: treasuryId, amount: share.treasury },
      ];
    },
    alsoWrite: async (executor, charge) => {
      await executor.insert(usageRecords).values({
        requestId: input.requestId,
        accountId: input.accountId,
        model: input.model,
        route: input.candidate.route,
        providerId: input.candidate.providerId,
        inputTokens: input.usage.inputTokens,
        outputTokens: input.usage.outputTokens,
        cacheReadTokens: input.usage.cacheReadTokens,
        cacheWriteTokens: input.usage.cacheWriteTokens,
        costMicrounits: charge,
        outcome: input.outcome,
      });
    },
  });
}

export { releaseHold };
