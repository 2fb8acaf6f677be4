import { type Address, createSolanaRpc, type Signature } from "@solana/kit";
import { eq, sql } from "drizzle-orm";
import { depositCursors } from "../../db/schema";
import type { LedgerServices } from "../../ledger/ledger-services";
import { log } from "../../log";
import { acquireLease, releaseLease } from "../../maintenance-lease";
import type { Services } from "../../services";
import { depositTokenAccount, type SolanaDepositConfig, solanaDepositSettings } from "./deposit-config";
import type { DepositTransactionJson } from "./read-deposit-transaction";
import { readDepositTransaction } from "./read-deposit-transaction";
import { recordDeposit } from "./record-deposit";

/** One entry of `getSignaturesForAddress`. */
interface SignatureInfo {
  signature: string;
  err: unknown;
}

/**
 * What the watcher asks of the chain, at the configured commitment. The production reader is
 * JSON-RPC (`rpcDepositReader`); tests wrap it to fail at chosen points.
 */
export interface DepositChainReader {
  /** Newest first, strictly between `until` and `before`, at most `limit`. */
  signaturesFor(
    address: string,
    options: { before?: string; until?: string; limit: number },
  ): Promise<readonly SignatureInfo[]>;
  /** The transaction, or null while it has not reached the commitment. */
  transaction(signature: string): Promise<DepositTransactionJson | null>;
}

/** The deposit watcher over Solana JSON-RPC (`getSignaturesForAddress`, `getTransaction` as json). */
export function rpcDepositReader(rpcUrl: string, commitment: "confirmed" | "finalized"): DepositChainReader {
  const rpc = createSolanaRpc(rpcUrl);
  return {
    async signaturesFor(address, options) {
      return rpc
        .getSignaturesForAddress(address as Address, {
          commitment,
          limit: options.limit,
          ...(options.before ? { before: options.before as Signature } : {}),
          ...(options.until ? { until: options.until as Signature } : {}),
        })
        .send();
    },
    async transaction(signature) {
      const found = await rpc
        .getTransaction(signature as Signature, {
          commitment,
          encoding: "json",
          maxSupportedTransactionVersion: 0,
        })
        .send();
      return found as unknown as DepositTransactionJson | null;
    },
  };
}

const depositWatcherLease = "solana-deposit-watcher";

export interface DepositScanOptions {
  reader?: DepositChainReader;
  /** Who takes the lease; this process's instance id by default. */
  holder?: string;
  /** Signatures per `getSignaturesForAddress` page (1000, the RPC's maximum, by default). */
  pageSize?: number;
}

export interface DepositScanResult {
  /** False when deposits are off or another replica holds the watcher's lease. */
  ran: boolean;
  credited: number;
  bonded: number;
  unmatched: number;
  /** Failed on-chain: skipped, never credited nor parked. */
  failed: number;
  /** Seen by an earlier scan or another watcher: nothing posted again. */
  duplicates: number;
  /** Signatures listed but not yet readable at the commitment: the next scan starts there. */
  waiting: number;
}

const LEASE_SECONDS = 300;
/** Signatures between lease renewals within one address's pass. */
const RENEW_EVERY = 100;

/**
 * One pass of the deposit watcher. Under a lease (one replica at a time), for the deposit USDC
 * account and the deposit wallet itself (where another asset lands), it lists the signatures
 * newer than the persisted cursor, oldest first, reads each transaction at the configured
 * commitment, records what arrived (`recordDeposit`: once per signature) and moves the cursor
 * past it. A crash anywhere leaves the cursor at or before the last recorded signature, and
 * recording again is a no-op, so a rescan is always safe.
 */
export async function scanDeposits(
  app: Services & Pick<LedgerServices, "holds">,
  options: DepositScanOptions = {},
): Promise<DepositScanResult> {
  const result: DepositScanResult = {
    ran: false,
    credited: 0,
    bonded: 0,
    unmatched: 0,
    failed: 0,
    duplicates: 0,
    waiting: 0,
  };
  const settings = solanaDepositSettings(app.env);
  if (!settings.enabled) return result;
  const database = app.database.db;
  const holder = options.holder ?? app.holds.instanceId;
  if (!(await acquireLease(database, depositWatcherLease, holder, LEASE_SECONDS))) return result;
  result.ran = true;
  try {
    const reader = options.reader ?? rpcDepositReader(settings.rpcUrl, settings.commitment);
    const target = {
      owner: settings.owner,
      tokenAccount: await depositTokenAccount(settings),
      usdcMint: settings.usdcMint,
    };
    // A long first pass keeps its lease; the signature key still guards an overlap if it ever lapses.
    const renew = () => acquireLease(database, depositWatcherLease, holder, LEASE_SECONDS);
    for (const address of [target.tokenAccount, target.owner]) {
      await scanAddress(app, settings, reader, address, target, options.pageSize ?? 1000, result, renew);
      await renew();
    }
  } finally {
    await releaseLease(database, depositWatcherLease, holder);
  }
  return result;
}

async function scanAddress(
  app: Services & Pick<LedgerServices, "holds">,
  settings: SolanaDepositConfig,
  reader: DepositChainReader,
  address: string,
  target: Parameters<typeof readDepositTransaction>[1],
  pageSize: number,
  result: DepositScanResult,
  renew: () => Promise<boolean>,
): Promise<void> {
  const database = app.database.db;
  const [cursor] = await database
    .select({ lastSignature: depositCursors.lastSignature })
    .from(depositCursors)
    .where(eq(depositCursors.address, address));
  const until = cursor?.lastSignature;
  const newestFirst: SignatureInfo[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await reader.signaturesFor(address, {
      limit: pageSize,
      ...(until ? { until } : {}),
      ...(before ? { before } : {}),
    });
    newestFirst.push(...page);
    const last = page.at(-1);
    if (page.length < pageSize || !last) break;
    before = last.signature;
  }
  const pending = newestFirst.reverse();
  for (const [index, info] of pending.entries()) {
    if (index > 0 && index % RENEW_EVERY === 0) await renew();
    if (info.err === null || info.err === undefined) {
      const transaction = await reader.transaction(info.signature);
      if (!transaction) {
        // Listed at the commitment but not yet served: never skip past it.
        result.waiting = pending.length - index;
        return;
      }
      const reading = readDepositTransaction(transaction, target);
      if (reading.type === "failed") result.failed += 1;
      if (reading.type === "arrival") {
        const recorded = await recordDeposit(database, {
          signature: info.signature,
          network: settings.network,
          arrival: reading,
        });
        if (recorded.outcome === "duplicate") result.duplicates += 1;
        else {
          result[recorded.outcome] += 1;
          log.info("solana deposit recorded", { signature: info.signature, ...describe(recorded) });
        }
      }
    } else {
      result.failed += 1;
    }
    await database.execute(sql`INSERT INTO deposit_cursors (address, last_signature, updated_at)
      VALUES (${address}, ${info.signature}, now())
      ON CONFLICT (address) DO UPDATE SET last_signature = EXCLUDED.last_signature, updated_at = now()`);
  }
}

function describe(recorded: Awaited<ReturnType<typeof recordDeposit>>): Record<string, unknown> {
  switch (recorded.outcome) {
    case "credited":
      return { outcome: "credited", token: recorded.tokenId, amount: recorded.amount.toString() };
    case "bonded":
      return {
        outcome: "bonded",
        provider: recorded.hostId,
        amount: recorded.amount.toString(),
        activated: recorded.activated,
      };
    case "unmatched":
      return { outcome: "unmatched", reason: recorded.reason, amount: recorded.amount.toString() };
    case "duplicate":
      return { outcome: "duplicate" };
  }
}
