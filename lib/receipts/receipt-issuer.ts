import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ReceiptKeySet } from "@pod-gateway/contracts/usage-receipt";
import { decodeSeed, newSeed } from "../crypto/ed25519-seed";
import type { Executor } from "../db/client";
import type { Env } from "../env";
import { log } from "../log";
import { type ReceiptSigner, receiptKeySet, receiptSigner } from "./receipt-keys";
import { ReceiptStore } from "./receipt-store";

/** What signs this gateway's receipts and what it publishes for verifiers. */
export interface ReceiptIssuer {
  /** The receipts' `iss`. */
  name: string;
  signer: ReceiptSigner;
  keySet: ReceiptKeySet;
  store: ReceiptStore;
}

/** Where a development gateway keeps the receipt key it made, so its receipts survive a restart. */
function devKeyPath(env: Pick<Env, "POD_DATA_DIR">): string {
  return path.join(env.POD_DATA_DIR, "receipt-signing-key");
}

/** The development key: read, or made once (exclusive create, so two starts agree on one). */
function devSeed(file: string): Buffer {
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    writeFileSync(file, `${newSeed().toString("hex")}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const seed = decodeSeed(readFileSync(file, "utf8"));
  if (!seed) throw new Error(`${file} does not hold a 32-byte Ed25519 seed: delete it to make a new one`);
  return seed;
}

/**
 * The receipt issuer the settings describe, or undefined when receipts are off: RECEIPTS=off,
 * or production without RECEIPT_SIGNING_KEY (a key made on the spot would sign receipts no
 * one can check after the process is gone).
 */
export async function loadReceiptIssuer(env: Env, database: Executor): Promise<ReceiptIssuer | undefined> {
  if (env.RECEIPTS === "off") return undefined;
  let seed = env.RECEIPT_SIGNING_KEY === undefined ? undefined : decodeSeed(env.RECEIPT_SIGNING_KEY);
  if (seed === undefined) {
    if (env.NODE_ENV === "production") {
      // A setting left at its default, not a fault: said once, on stdout (npm start on embedded defaults prints nothing to stderr).
      log.info("receipts are off: set RECEIPT_SIGNING_KEY (npx pod-gateway receipt-key new) to sign them");
      return undefined;
    }
    // memory:// names no folder: a key kept there would be written into the working directory
    // as `memory:/…`; a gateway whose data dies with it signs with a key that does too.
    seed = env.POD_DATA_DIR.startsWith("memory://") ? newSeed() : devSeed(devKeyPath(env));
  }
  const since = env.RECEIPT_SIGNING_KEY_SINCE;
  const signer = await receiptSigner(seed, since === undefined ? 0 : Math.floor(Date.parse(since) / 1000));
  return {
    name: env.RECEIPT_ISSUER ?? env.PUBLIC_BASE_URL ?? "pod-gateway",
    signer,
    keySet: receiptKeySet(signer, env.RECEIPT_KEY_HISTORY),
    store: new ReceiptStore(database),
  };
}
