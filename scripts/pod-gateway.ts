// `pod-gateway`: the gateway's command line for people who hold no secret of it. It reads no
// database and no settings: `verify-receipt` checks a receipt against published keys, and
// `receipt-key` makes and retires the operator's receipt keys.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type ReceiptKeySet, receiptKeySetSchema } from "@pod-gateway/contracts/usage-receipt";
import { decodeSeed, newSeed } from "../lib/crypto/ed25519-seed";
import { publicReceiptKey } from "../lib/receipts/receipt-keys";
import { verifyReceipt } from "../lib/receipts/verify-receipt";

const usage = `usage:
  pod-gateway verify-receipt <file|-> --keys <url|file> [--request-id ID] [--host-key BASE64]
                             [--request-file FILE] [--response-file FILE]
      Checks a receipt (a compact JWS, or JSON with a "receipt" field) against the published
      key set (GET <gateway>/.well-known/pod-receipt-keys.json). Exit 0: valid; 1: invalid.
  pod-gateway receipt-key new
      Prints a new receipt signing key as RECEIPT_SIGNING_KEY and RECEIPT_SIGNING_KEY_SINCE lines.
  pod-gateway receipt-key retire --since ISO --until ISO   (the old key's seed on stdin)
      Prints the retired key's public entry for RECEIPT_KEY_HISTORY.`;

class UsageError extends Error {}

function readInput(source: string): string {
  return readFileSync(source === "-" ? 0 : source, "utf8");
}

/** The JWS itself, or the `receipt` field of a JSON document that carries one (an API answer). */
function receiptText(input: string): string {
  const text = input.trim();
  if (!text.startsWith("{")) return text;
  const json: unknown = JSON.parse(text);
  const receipt = typeof json === "object" && json !== null ? Reflect.get(json, "receipt") : undefined;
  if (typeof receipt !== "string") throw new UsageError("the JSON input has no string `receipt` field");
  return receipt;
}

async function loadKeySet(location: string): Promise<ReceiptKeySet> {
  const text = /^https?:\/\//.test(location)
    ? await fetch(location, { signal: AbortSignal.timeout(10_000) }).then(async (response) => {
        if (!response.ok) throw new UsageError(`${location} answered ${response.status}`);
        return response.text();
      })
    : readFileSync(location, "utf8");
  const parsed = receiptKeySetSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new UsageError(`${location} is not a receipt key set`);
  return parsed.data;
}

async function verifyCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      keys: { type: "string" },
      "request-id": { type: "string" },
      "host-key": { type: "string" },
      "request-file": { type: "string" },
      "response-file": { type: "string" },
    },
  });
  const [source] = positionals;
  if (source === undefined || values.keys === undefined || positionals.length > 1)
    throw new UsageError("verify-receipt needs one receipt (a file or -) and --keys");
  const keySet = await loadKeySet(values.keys);
  const result = await verifyReceipt(receiptText(readInput(source)), keySet, {
    ...(values["request-id"] === undefined ? {} : { requestId: values["request-id"] }),
    ...(values["host-key"] === undefined ? {} : { hostPubkey: values["host-key"] }),
    ...(values["request-file"] === undefined ? {} : { requestBody: readFileSync(values["request-file"]) }),
    ...(values["response-file"] === undefined ? {} : { responseBody: readFileSync(values["response-file"]) }),
  });
  if (!result.ok) {
    process.stderr.write(`receipt INVALID: ${result.reason}\n`);
    return 1;
  }
  process.stdout.write(`receipt valid (key ${result.key.kid})\n${JSON.stringify(result.receipt, null, 2)}\n`);
  return 0;
}

async function keyCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { since: { type: "string" }, until: { type: "string" } },
  });
  if (positionals[0] === "new") {
    const seed = newSeed();
    const published = await publicReceiptKey(seed, Math.floor(Date.now() / 1000));
    process.stdout.write(
      `RECEIPT_SIGNING_KEY=${seed.toString("hex")}\nRECEIPT_SIGNING_KEY_SINCE=${new Date().toISOString()}\n# kid ${published.kid}\n`,
    );
    return 0;
  }
  if (positionals[0] === "retire") {
    const since = Date.parse(values.since ?? "");
    const until = Date.parse(values.until ?? "");
    if (Number.isNaN(since) || Number.isNaN(until) || until < since)
      throw new UsageError("retire needs --since and --until as ISO times, since before until");
    const seed = decodeSeed(readInput("-"));
    if (!seed) throw new UsageError("stdin does not hold a 32-byte Ed25519 seed (hex or base64)");
    const key = await publicReceiptKey(seed, Math.floor(since / 1000), Math.floor(until / 1000));
    process.stdout.write(`${JSON.stringify(key)}\n`);
    return 0;
  }
  throw new UsageError("receipt-key new | retire");
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === "verify-receipt") return await verifyCommand(rest);
    if (command === "receipt-key") return await keyCommand(rest);
    throw new UsageError(command === undefined ? "no command" : `unknown command ${command}`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`pod-gateway: ${message}\n${error instanceof UsageError ? usage : ""}\n`);
    return 2;
  }
}
