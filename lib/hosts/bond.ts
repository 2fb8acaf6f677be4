import { and, eq } from "drizzle-orm";
import type { Executor } from "../db/client";
import { accounts } from "../db/schema";
import type { Env } from "../env";

/** Every provider posts a 50 USDC bond, held while it operates. */
export const bondAmountMicrounits = 50_000_000n;

/** The bond instructions a host sees: the code binds the deposit to its bond, not to a token balance. */
export function bondView(env: Env, depositCode: string) {
  return {
    deposit_code: depositCode,
    amount_usdc: Number(bondAmountMicrounits / 1_000_000n),
    amount_microunits: Number(bondAmountMicrounits),
    // null while on-chain deposits are off: the bond then needs an operator's activation.
    destination: env.SOLANA_DEPOSIT_ADDRESS ?? null,
    memo: depositCode,
  };
}

/** What the host's bond account holds now: deposits booked by the watcher, less a returned bond. */
export async function bondHeld(executor: Executor, hostId: string): Promise<bigint> {
  const [row] = await executor
    .select({ balance: accounts.balance })
    .from(accounts)
    .where(and(eq(accounts.kind, "bond"), eq(accounts.ref, hostId)));
  return row?.balance ?? 0n;
}
