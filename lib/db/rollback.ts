import type { Executor } from "./client";

/**
 * A database transaction that may end in a named refusal instead of a commit: a claim someone
 * else wrote first, a quote already settled, a budget that would be overspent. The work calls
 * `rollback(reason)`, everything it wrote is undone, and the caller gets the reason back to
 * turn into its own answer: one mechanism for every such case, instead of a private exception
 * class per reason in each caller.
 */
export type Committed<T, R extends string> =
  | { type: "committed"; value: T }
  | { type: "rolled_back"; reason: R };

class RolledBack extends Error {
  constructor(
    readonly owner: object,
    readonly reason: string,
  ) {
    super(`rolled back: ${reason}`);
  }
}

export async function transactionUnless<T, R extends string>(
  executor: Executor,
  work: (transaction: Executor, rollback: (reason: R) => never) => Promise<T>,
): Promise<Committed<T, R>> {
  // A refusal belongs to this call only: one thrown by an outer call passes through untouched.
  const owner = {};
  const rollback = (reason: R): never => {
    throw new RolledBack(owner, reason);
  };
  try {
    return {
      type: "committed",
      value: await executor.transaction((transaction) => work(transaction, rollback)),
    };
  } catch (error) {
    if (error instanceof RolledBack && error.owner === owner)
      return { type: "rolled_back", reason: error.reason as R };
    throw error;
  }
}
