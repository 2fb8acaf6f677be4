import {
  type Address,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Decoder,
  getBase64Encoder,
  isAddress,
  type MaybeEncodedAccount,
} from "@solana/kit";
import { MEMO_PROGRAM_ADDRESS, MEMO_V1_PROGRAM_ADDRESS } from "../../../lib/chains/solana/constants";
import type { Faucet } from "./faucet";
import { RPC_ERROR_CODES, RpcError, type RpcMethodTable, type RpcParams } from "./json-rpc-server";
import type { LocalChain } from "./local-chain";
import { readMint, readTokenAccount, uiTokenAmount } from "./token-accounts";
import { type LandedTransaction, renderTransaction, type TransactionEncoding } from "./transaction-record";

/**
 * The Solana JSON-RPC methods the gateway, @solana/kit and the @x402/svm client and
 * facilitator call, answered from the local chain in the validator's wire shapes.
 * Unknown methods get -32601 so a missing method is loud, never silently wrong.
 */

/** Devnet's genesis hash: the CAIP-2 id `solana:EtWTRABZ…` is derived from it. */
const GENESIS_HASH = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG";
/** Rent-exempt accounts report u64::MAX as their rent epoch. */
const RENT_EPOCH_EXEMPT = 18_446_744_073_709_551_615n;

export function createRpcMethods(chain: LocalChain, faucet: Faucet): RpcMethodTable {
  const context = <T>(value: T) => ({ context: { slot: chain.currentSlot, apiVersion: "2.2.0" }, value });

  return {
    getHealth: () => "ok",
    getVersion: () => ({ "solana-core": "2.2.0-local", "feature-set": 0 }),
    getGenesisHash: () => GENESIS_HASH,
    getSlot: () => chain.currentSlot,
    getBlockHeight: () => chain.blockHeight,
    getTransactionCount: () => chain.transactionCount,
    getEpochInfo: () => ({
      absoluteSlot: chain.currentSlot,
      blockHeight: chain.blockHeight,
      epoch: chain.epoch,
      slotIndex: chain.currentSlot % 432_000n,
      slotsInEpoch: 432_000n,
      transactionCount: chain.transactionCount,
    }),
    getLatestBlockhash: () => context(chain.latestBlockhash()),
    isBlockhashValid: (params) => context(chain.isBlockhashValid(stringParam(params, 0, "blockhash"))),
    getRecentPrioritizationFees: () => [],
    getMinimumBalanceForRentExemption: (params) =>
      chain.svm.minimumBalanceForRentExemption(BigInt(numberParam(params, 0, "data length"))),
    getBalance: (params) => context(BigInt(chain.svm.getBalance(addressParam(params, 0)) ?? 0n)),
    getAccountInfo: (params) =>
      context(renderAccount(chain.getAccount(addressParam(params, 0)), encodingOf(params[1]), chain)),
    getMultipleAccounts: (params) => {
      const addresses = params[0];
      if (!Array.isArray(addresses)) throw invalidParams("expected an array of addresses");
      const encoding = encodingOf(params[1]);
      return context(
        addresses.map((item) => renderAccount(chain.getAccount(toAddress(item)), encoding, chain)),
      );
    },
    getTokenAccountBalance: (params) => {
      const token = readTokenAccount(chain.getAccount(addressParam(params, 0)));
      if (!token) throw invalidParams("Invalid param: not a Token account");
      const decimals = readMint(chain.getAccount(token.mint))?.decimals ?? 0;
      return context(uiTokenAmount(token.amount, decimals));
    },
    requestAirdrop: (params) =>
      faucet.airdrop(addressParam(params, 0), BigInt(numberParam(params, 1, "lamports"))),
    sendTransaction: (params) => {
      const config = configParam(params, 1);
      return chain.send(wireParam(params, config), { skipPreflight: config.skipPreflight === true });
    },
    simulateTransaction: (params) => {
      const config = configParam(params, 1);
      const result = chain.simulate(wireParam(params, config), {
        sigVerify: config.sigVerify === true,
        replaceRecentBlockhash: config.replaceRecentBlockhash === true,
      });
      return context({
        err: result.err,
        logs: result.logs,
        accounts: null,
        unitsConsumed: result.unitsConsumed,
        returnData: null,
        innerInstructions: config.innerInstructions === true ? result.innerInstructions : null,
        ...(result.replacementBlockhash ? { replacementBlockhash: result.replacementBlockhash } : {}),
      });
    },
    getSignatureStatuses: (params) => {
      const signatures = params[0];
      if (!Array.isArray(signatures)) throw invalidParams("expected an array of signatures");
      return context(
        signatures.map((signature) => {
          const status = chain.getSignatureStatus(String(signature));
          if (!status) return null;
          return {
            slot: status.slot,
            confirmations: status.confirmed ? null : 0,
            err: status.err,
            status: status.err === null ? { Ok: null } : { Err: status.err },
            confirmationStatus: status.confirmed ? "finalized" : "processed",
          };
        }),
      );
    },
    getSignaturesForAddress: (params) => {
      const config = configParam(params, 1);
      const commitment = config.commitment ?? "finalized";
      if (commitment !== "confirmed" && commitment !== "finalized") {
        throw invalidParams("Method does not support commitment below `confirmed`");
      }
      const limit = config.limit ?? MAX_SIGNATURES_LIMIT;
      if (
        typeof limit !== "number" ||
        !Number.isInteger(limit) ||
        limit < 1 ||
        limit > MAX_SIGNATURES_LIMIT
      ) {
        throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_LIMIT}`);
      }
      const records = chain.signaturesForAddress(addressParam(params, 0), {
        ...optionalSignature(config, "before"),
        ...optionalSignature(config, "until"),
        limit,
        confirmedOnly: true,
      });
      return records.map((record) => ({
        signature: record.signature,
        slot: record.slot,
        err: record.err,
        memo: memoField(record),
        blockTime: record.blockTime,
        confirmationStatus: "finalized",
      }));
    },
    getTransaction: (params) => {
      const config = configParam(params, 1);
      const record = chain.getLanded(stringParam(params, 0, "signature"));
      if (!record?.confirmed) return null;
      const encoding = config.encoding ?? "json";
      if (!isTransactionEncoding(encoding)) {
        throw invalidParams(
          `encoding ${String(encoding)} is not supported by the local chain for getTransaction`,
        );
      }
      const maxVersion = config.maxSupportedTransactionVersion;
      if (record.message.version === 0 && maxVersion === undefined) {
        throw new RpcError(
          RPC_ERROR_CODES.unsupportedTransactionVersion,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      return renderTransaction(record, encoding, maxVersion !== undefined);
    },
    getFeeForMessage: (params) => {
      const message = new Uint8Array(getBase64Encoder().encode(stringParam(params, 0, "message")));
      return context(chain.feeForMessage(message));
    },
    getBlockTime: (params) => {
      const slot = BigInt(numberParam(params, 0, "slot"));
      const time = chain.blockTimeOfSlot(slot);
      if (time === undefined) throw new RpcError(-32004, `Block not available for slot ${slot}`);
      return time;
    },
  };
}

/** getSignaturesForAddress answers at most this many per call (Agave's limit). */
const MAX_SIGNATURES_LIMIT = 1000;
const MEMO_PROGRAMS: readonly string[] = [MEMO_PROGRAM_ADDRESS, MEMO_V1_PROGRAM_ADDRESS];

function optionalSignature(config: Record<string, unknown>, name: "before" | "until") {
  const value = config[name];
  if (value === undefined || value === null) return {};
  if (typeof value !== "string") throw invalidParams(`Invalid param: ${name} must be a signature string`);
  return { [name]: value };
}

/** The validator's memo summary: each memo instruction as `[<byte length>] <text>`, joined by `; `. */
function memoField(record: LandedTransaction): string | null {
  const keys = record.message.staticAccounts;
  const memos = record.message.instructions
    .filter((instruction) => MEMO_PROGRAMS.includes(keys[instruction.programAddressIndex] ?? ""))
    .map((instruction) => {
      const data = instruction.data ?? new Uint8Array();
      return `[${data.length}] ${new TextDecoder().decode(data)}`;
    });
  return memos.length > 0 ? memos.join("; ") : null;
}

type AccountEncoding = "base58" | "base64" | "jsonParsed";

function renderAccount(account: MaybeEncodedAccount, encoding: AccountEncoding, chain: LocalChain) {
  if (!account.exists) return null;
  const base = {
    executable: account.executable,
    lamports: BigInt(account.lamports),
    owner: account.programAddress,
    rentEpoch: RENT_EPOCH_EXEMPT,
    space: BigInt(account.data.length),
  };
  const parsed = encoding === "jsonParsed" ? parseTokenState(account, chain) : undefined;
  if (parsed) return { ...base, data: parsed };
  // Validators fall back to base64 when jsonParsed has no parser for the owner program.
  const binary = encoding === "base58" ? "base58" : "base64";
  const text =
    binary === "base58" ? getBase58Decoder().decode(account.data) : getBase64Decoder().decode(account.data);
  return { ...base, data: [text, binary] };
}

function parseTokenState(account: MaybeEncodedAccount, chain: LocalChain) {
  if (!account.exists) return undefined;
  const program = account.programAddress.startsWith("Tokenz") ? "spl-token-2022" : "spl-token";
  const space = BigInt(account.data.length);
  const token = readTokenAccount(account);
  if (token) {
    const decimals = readMint(chain.getAccount(token.mint))?.decimals ?? 0;
    const info = {
      isNative: token.isNative,
      mint: token.mint,
      owner: token.owner,
      state: token.frozen ? "frozen" : "initialized",
      tokenAmount: uiTokenAmount(token.amount, decimals),
    };
    return { program, parsed: { type: "account", info }, space };
  }
  const mint = readMint(account);
  if (mint) {
    const info = {
      decimals: mint.decimals,
      freezeAuthority: mint.freezeAuthority,
      isInitialized: true,
      mintAuthority: mint.mintAuthority,
      supply: mint.supply.toString(),
    };
    return { program, parsed: { type: "mint", info }, space };
  }
  return undefined;
}

function invalidParams(message: string): RpcError {
  return new RpcError(RPC_ERROR_CODES.invalidParams, message);
}

function stringParam(params: RpcParams, index: number, name: string): string {
  const value = params[index];
  if (typeof value !== "string") throw invalidParams(`Invalid params: ${name} must be a string`);
  return value;
}

function isTransactionEncoding(value: unknown): value is TransactionEncoding {
  return value === "json" || value === "base64" || value === "base58";
}

function numberParam(params: RpcParams, index: number, name: string): number {
  const value = params[index];
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  throw invalidParams(`Invalid params: ${name} must be a non-negative integer`);
}

function toAddress(value: unknown): Address {
  if (typeof value !== "string" || !isAddress(value)) throw invalidParams("Invalid param: Invalid");
  return value;
}

function addressParam(params: RpcParams, index: number): Address {
  return toAddress(params[index]);
}

function configParam(params: RpcParams, index: number): Record<string, unknown> {
  const value = params[index];
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

function encodingOf(config: unknown): AccountEncoding {
  const encoding =
    typeof config === "object" && config !== null && "encoding" in config ? config.encoding : undefined;
  if (encoding === undefined || encoding === "base58") return "base58";
  if (encoding === "base64" || encoding === "jsonParsed") return encoding;
  throw invalidParams(`encoding ${String(encoding)} is not supported by the local chain`);
}

function wireParam(params: RpcParams, config: Record<string, unknown>): Uint8Array {
  const text = stringParam(params, 0, "transaction");
  // sendTransaction and simulateTransaction default to base58 on real validators too.
  const encoding = config.encoding ?? "base58";
  if (encoding === "base64") return new Uint8Array(getBase64Encoder().encode(text));
  if (encoding === "base58") return new Uint8Array(getBase58Encoder().encode(text));
  throw invalidParams(`encoding ${String(encoding)} is not supported`);
}
