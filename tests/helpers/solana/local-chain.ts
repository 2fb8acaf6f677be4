import { randomBytes } from "node:crypto";
import {
  type Address,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  type MaybeEncodedAccount,
  type Signature,
} from "@solana/kit";
import { Clock, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";
import {
  type DecodedWireTransaction,
  decodeWireTransaction,
  TransactionDecodeError,
  transactionSignature,
} from "../../../lib/chains/solana/decode-transaction";
import { computeTransactionFee } from "../../../lib/chains/solana/transaction-fee";
import { RPC_ERROR_CODES, RpcError } from "./json-rpc-server";
import {
  describeTransactionError,
  type TransactionErrorJson,
  transactionErrorToJson,
} from "./transaction-error-json";
import {
  innerInstructionsJson,
  type LandedTransaction,
  lamportBalances,
  tokenBalances,
} from "./transaction-record";

/**
 * LiteSVM with the behaviour of a real cluster that tests depend on:
 * - slots advance with every landed transaction, each slot has its own blockhash, and a
 *   blockhash stays valid for 150 slots (LiteSVM alone only knows one blockhash);
 * - a transaction that fails during execution still lands: fee charged, `meta.err` set;
 * - failures that stop a validator from executing it (bad signature, unknown blockhash,
 *   unfunded fee payer) never land, exactly like a dropped transaction on mainnet;
 * - block time follows the wall clock, or a time the test pins.
 */

const BLOCKHASH_VALID_SLOTS = 150n;
const SLOTS_PER_EPOCH = 432_000n;
const START_SLOT = 1_000n;

export interface SimulationResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  innerInstructions: ReturnType<typeof innerInstructionsJson> | null;
  replacementBlockhash: { blockhash: string; lastValidBlockHeight: bigint } | null;
}

export type SignatureStatus = {
  slot: bigint;
  err: TransactionErrorJson | null;
  confirmed: boolean;
};

export class LocalChain {
  readonly svm: LiteSVM;
  private slot = START_SLOT;
  /** blockhash → slot that produced it. */
  private readonly blockhashes = new Map<string, bigint>();
  private latestHash = "";
  private readonly slotTimes = new Map<bigint, bigint>();
  private pinnedTime: bigint | undefined;
  private offsetSeconds = 0n;
  private readonly landed = new Map<string, LandedTransaction>();
  private holding = false;
  transactionCount = 0n;

  constructor(svm: LiteSVM = new LiteSVM()) {
    // Blockhash validity is enforced here (150-slot window); LiteSVM only accepts its latest.
    this.svm = svm.withBlockhashCheck(false);
    this.produceSlot();
  }

  get currentSlot(): bigint {
    return this.slot;
  }

  /** No skipped slots locally, so block height equals the slot. */
  get blockHeight(): bigint {
    return this.slot;
  }

  get epoch(): bigint {
    return this.slot / SLOTS_PER_EPOCH;
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint } {
    const producedAt = this.blockhashes.get(this.latestHash) ?? this.slot;
    return { blockhash: this.latestHash, lastValidBlockHeight: producedAt + BLOCKHASH_VALID_SLOTS };
  }

  isBlockhashValid(blockhash: string): boolean {
    const producedAt = this.blockhashes.get(blockhash);
    return producedAt !== undefined && this.slot <= producedAt + BLOCKHASH_VALID_SLOTS;
  }

  /** Unix seconds the next slot will carry. */
  now(): bigint {
    return this.pinnedTime ?? BigInt(Math.floor(Date.now() / 1000)) + this.offsetSeconds;
  }

  /** Pins block time (seconds) for every following slot until `useWallClock`. */
  setBlockTime(unixSeconds: bigint): void {
    this.pinnedTime = unixSeconds;
    this.syncClock();
  }

  /** Block time follows the wall clock again, shifted by `offsetSeconds`. */
  useWallClock(offsetSeconds = 0n): void {
    this.pinnedTime = undefined;
    this.offsetSeconds = offsetSeconds;
    this.syncClock();
  }

  blockTimeOfSlot(slot: bigint): bigint | undefined {
    return this.slotTimes.get(slot);
  }

  advanceSlots(count: bigint): void {
    for (let index = 0n; index < count; index += 1n) this.produceSlot();
  }

  /** Moves past the validity window so every blockhash handed out so far is dead. */
  expireBlockhashes(): void {
    this.advanceSlots(BLOCKHASH_VALID_SLOTS + 1n);
  }

  /** New landings report `processed` and stay invisible to confirmed reads. */
  holdConfirmations(): void {
    this.holding = true;
  }

  releaseConfirmations(): void {
    this.holding = false;
    for (const record of this.landed.values()) record.confirmed = true;
  }

  getAccount(address: Address): MaybeEncodedAccount {
    return this.svm.getAccount(address);
  }

  getLanded(signature: string): LandedTransaction | undefined {
    return this.landed.get(signature);
  }

  /**
   * `getSignaturesForAddress`: landed transactions that name `address` among their account
   * keys, newest first. `before` starts below that signature (an unknown one yields nothing),
   * `until` stops above it (an unknown one sets no lower bound), as a validator does.
   */
  signaturesForAddress(
    address: Address,
    options: { before?: string; until?: string; limit: number; confirmedOnly: boolean },
  ): LandedTransaction[] {
    const newestFirst = [...this.landed.values()].reverse();
    let start = 0;
    if (options.before !== undefined) {
      const index = newestFirst.findIndex((record) => record.signature === options.before);
      if (index < 0 || (options.confirmedOnly && !newestFirst[index]?.confirmed)) return [];
      start = index + 1;
    }
    const found: LandedTransaction[] = [];
    for (const record of newestFirst.slice(start)) {
      if (record.signature === options.until) break;
      if (found.length >= options.limit) break;
      if (options.confirmedOnly && !record.confirmed) continue;
      if (record.message.staticAccounts.includes(address)) found.push(record);
    }
    return found;
  }

  getSignatureStatus(signature: string): SignatureStatus | null {
    const record = this.landed.get(signature);
    return record ? { slot: record.slot, err: record.err, confirmed: record.confirmed } : null;
  }

  /**
   * Processes a wire transaction like `sendTransaction`. With preflight, a transaction
   * that would fail is refused with the validator's -32002/-32003 errors and never
   * lands; with `skipPreflight` it goes straight to execution, so an execution failure
   * lands with its fee charged and a non-executable one is silently dropped.
   */
  send(wire: Uint8Array, options: { skipPreflight: boolean }): Signature {
    const decoded = decodeForRpc(wire);
    const signature = signatureOrThrow(decoded);
    if (this.landed.has(signature)) {
      if (options.skipPreflight) return signature;
      throw preflightFailure("AlreadyProcessed", [], 0n);
    }
    if (!options.skipPreflight) {
      const simulation = this.simulateDecoded(decoded, { sigVerify: true, replaceRecentBlockhash: false });
      if (simulation.err !== null) {
        throw preflightFailure(simulation.err, simulation.logs, simulation.unitsConsumed);
      }
    }
    if (!this.isBlockhashValid(decoded.message.lifetimeToken)) return signature;
    this.execute(decoded, signature);
    return signature;
  }

  simulate(
    wire: Uint8Array,
    options: { sigVerify: boolean; replaceRecentBlockhash: boolean },
  ): SimulationResult {
    if (options.sigVerify && options.replaceRecentBlockhash) {
      throw new RpcError(
        RPC_ERROR_CODES.invalidParams,
        "sigVerify may not be used with replaceRecentBlockhash",
      );
    }
    return this.simulateDecoded(decodeForRpc(wire), options);
  }

  /** Fee a message would pay, or null once its blockhash is no longer valid. */
  feeForMessage(messageBytes: Uint8Array): bigint | null {
    let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;
    try {
      message = getCompiledTransactionMessageDecoder().decode(messageBytes);
    } catch (error) {
      throw new RpcError(RPC_ERROR_CODES.invalidParams, `invalid message: ${String(error)}`);
    }
    if (message.version !== "legacy" && message.version !== 0) {
      throw new RpcError(RPC_ERROR_CODES.invalidParams, "unsupported message version");
    }
    return this.isBlockhashValid(message.lifetimeToken) ? computeTransactionFee(message) : null;
  }

  private simulateDecoded(
    decoded: DecodedWireTransaction,
    options: { sigVerify: boolean; replaceRecentBlockhash: boolean },
  ): SimulationResult {
    const replacement = options.replaceRecentBlockhash ? this.latestBlockhash() : null;
    if (!replacement && !this.isBlockhashValid(decoded.message.lifetimeToken)) {
      return emptySimulation("BlockhashNotFound");
    }
    if (options.sigVerify && hasMissingSignature(decoded)) throw signatureVerificationFailure();
    this.syncClock();
    this.svm.withSigverify(options.sigVerify);
    let result: ReturnType<LiteSVM["simulateTransaction"]>;
    try {
      result = this.svm.simulateTransaction(decoded.transaction);
    } catch (error) {
      throw new RpcError(RPC_ERROR_CODES.internalError, `simulation failed: ${String(error)}`);
    } finally {
      this.svm.withSigverify(true);
    }
    if (result instanceof FailedTransactionMetadata) {
      const err = transactionErrorToJson(result.err());
      if (options.sigVerify && err === "SignatureFailure") throw signatureVerificationFailure();
      return { ...simulationFromMeta(result.meta(), err), replacementBlockhash: replacement };
    }
    return { ...simulationFromMeta(result.meta(), null), replacementBlockhash: replacement };
  }

  private execute(decoded: DecodedWireTransaction, signature: Signature): void {
    this.produceSlot();
    const keys = decoded.message.staticAccounts;
    const loadMint = (mint: Address) => this.svm.getAccount(mint);
    const before = keys.map((key) => this.svm.getAccount(key));
    // LiteSVM throws for unsigned slots; a leader would drop such a transaction.
    if (hasMissingSignature(decoded)) return;
    const result = this.svm.sendTransaction(decoded.transaction);
    // LiteSVM keeps only executed transactions in its history: that is "landed".
    if (this.svm.getTransaction(signature) === null) return;
    const after = keys.map((key) => this.svm.getAccount(key));
    const failed = result instanceof FailedTransactionMetadata;
    const meta: TransactionMetadata = failed ? result.meta() : result;
    this.transactionCount += 1n;
    this.landed.set(signature, {
      signature,
      slot: this.slot,
      blockTime: this.slotTimes.get(this.slot) ?? this.now(),
      transaction: decoded.transaction,
      message: decoded.message,
      err: failed ? transactionErrorToJson(result.err()) : null,
      fee: computeTransactionFee(decoded.message),
      preBalances: lamportBalances(before),
      postBalances: lamportBalances(after),
      preTokenBalances: tokenBalances(before, loadMint),
      postTokenBalances: tokenBalances(after, loadMint),
      logMessages: meta.logs(),
      computeUnitsConsumed: meta.computeUnitsConsumed(),
      innerInstructions: innerInstructionsJson(meta),
      confirmed: !this.holding,
    });
  }

  private produceSlot(): void {
    if (this.latestHash !== "") this.slot += 1n;
    this.latestHash = getBase58Decoder().decode(randomBytes(32));
    this.blockhashes.set(this.latestHash, this.slot);
    this.slotTimes.set(this.slot, this.now());
    // Old hashes can never become valid again; keep the map small on long runs.
    for (const [hash, producedAt] of this.blockhashes) {
      if (producedAt + BLOCKHASH_VALID_SLOTS * 2n < this.slot) this.blockhashes.delete(hash);
    }
    this.syncClock();
  }

  private syncClock(): void {
    const epoch = this.epoch;
    this.svm.setClock(new Clock(this.slot, 0n, epoch, epoch, this.now()));
  }
}

function decodeForRpc(wire: Uint8Array): DecodedWireTransaction {
  let decoded: DecodedWireTransaction;
  try {
    decoded = decodeWireTransaction(wire);
  } catch (error) {
    const reason = error instanceof TransactionDecodeError ? error.message : "invalid transaction";
    throw new RpcError(RPC_ERROR_CODES.invalidParams, `failed to deserialize transaction: ${reason}`);
  }
  if (decoded.message.version === 0 && (decoded.message.addressTableLookups?.length ?? 0) > 0) {
    // Balances are snapshotted from static keys only; say so instead of reporting wrong ones.
    throw new RpcError(
      RPC_ERROR_CODES.invalidParams,
      "address lookup tables are not supported by the local chain",
    );
  }
  return decoded;
}

function signatureOrThrow(decoded: DecodedWireTransaction): Signature {
  try {
    return transactionSignature(decoded.transaction);
  } catch {
    throw signatureVerificationFailure();
  }
}

function hasMissingSignature(decoded: DecodedWireTransaction): boolean {
  return Object.values(decoded.transaction.signatures).some((signature) => signature === null);
}

function signatureVerificationFailure(): RpcError {
  return new RpcError(
    RPC_ERROR_CODES.transactionSignatureVerificationFailure,
    "Transaction signature verification failure",
  );
}

function preflightFailure(err: TransactionErrorJson, logs: string[], unitsConsumed: bigint): RpcError {
  return new RpcError(
    RPC_ERROR_CODES.sendTransactionPreflightFailure,
    `Transaction simulation failed: ${describeTransactionError(err)}`,
    { err, logs, accounts: null, unitsConsumed, returnData: null, innerInstructions: null },
  );
}

function emptySimulation(err: TransactionErrorJson): SimulationResult {
  return { err, logs: [], unitsConsumed: 0n, innerInstructions: null, replacementBlockhash: null };
}

function simulationFromMeta(meta: TransactionMetadata, err: TransactionErrorJson | null) {
  return {
    err,
    logs: meta.logs(),
    unitsConsumed: meta.computeUnitsConsumed(),
    innerInstructions: innerInstructionsJson(meta),
  };
}
