import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Address } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractCodeBlocks } from "../../docs/extract-snippets";
import { runCommand } from "../../docs/run-snippet";
import { keyPairWithSecret } from "../../helpers/x402-chain";
import { startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";

/**
 * The x402 guide's examples, run as written against a test gateway on the local chain:
 * the @x402/fetch client, the self-broadcast client in USDC and in SOL, the surplus spend,
 * and the curl quote. They read a wallet and an RPC the docs snippet runner does not
 * provide, so they are marked `norun` for it and run here instead.
 */

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const guide = readFileSync(path.join(repoRoot, "content/docs/using/x402-payments.mdx"), "utf8");
/** Inside the repository so the examples' imports resolve from its node_modules; never committed. */
const scratch = path.join(repoRoot, "node_modules/.cache/pod-x402-doc-examples");

function example(title: string): string {
  const block = extractCodeBlocks(guide).find((candidate) => candidate.meta.includes(`title="${title}"`));
  if (!block) throw new Error(`the guide has no example titled ${title}`);
  return block.code;
}

/** Only what the examples read: the docs' placeholders, PATH and HOME. */
function run(command: string, args: string[], env: Record<string, string>) {
  return runCommand(command, args, {
    NODE_ENV: "test",
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    ...env,
  });
}

let x402: X402TestGateway;
let env: Record<string, string>;
let wallet: Address;

beforeAll(async () => {
  x402 = await startX402TestGateway();
  const payer = await keyPairWithSecret();
  wallet = payer.signer.address;
  await x402.chain.solana.airdrop(wallet, 1_000_000_000n);
  await x402.chain.solana.mintUsdc(wallet, 5_000_000n);
  env = {
    POD_BASE_URL: x402.gateway.baseUrl,
    SOLANA_RPC_URL: x402.chain.solana.rpcUrl,
    SOLANA_SECRET_KEY: payer.secret,
  };
  mkdirSync(scratch, { recursive: true });
});
afterAll(async () => {
  await x402?.close();
});

async function runExample(title: string, extra: Record<string, string> = {}) {
  const file = path.join(scratch, title.replace(/\.ts$/, ".mts"));
  writeFileSync(file, example(title));
  const result = await run(process.execPath, ["--import", "tsx", file], { ...env, ...extra });
  expect(result.code, `${title}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

function receiptLine(stdout: string): Record<string, unknown> {
  const line = stdout
    .split("\n")
    .find((candidate) => candidate.startsWith("{") && candidate.includes('"success"'));
  if (!line) throw new Error(`no receipt printed:\n${stdout}`);
  return JSON.parse(line) as Record<string, unknown>;
}

describe("the x402 guide's examples work as written", () => {
  it("the curl quote prints the decoded PAYMENT-REQUIRED document", async () => {
    const block = extractCodeBlocks(guide).find(
      (candidate) => candidate.lang === "bash" && candidate.code.includes("payment-required"),
    );
    if (!block) throw new Error("no curl quote example");
    const result = await run("bash", ["-c", `set -euo pipefail\n${block.code}`], env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ x402Version: 2, accepts: expect.any(Array) });
  });

  it("pay-with-x402-fetch.ts pays through the standard path", async () => {
    const stdout = await runExample("pay-with-x402-fetch.ts");
    expect(stdout).toMatch(/^200 /m);
    expect(receiptLine(stdout)).toMatchObject({ success: true, payer: wallet, asset: "USDC" });
  });

  it("pay-self-broadcast.ts pays in USDC and in SOL", async () => {
    const usdc = await runExample("pay-self-broadcast.ts");
    expect(usdc).toMatch(/^200 /m);
    expect(receiptLine(usdc)).toMatchObject({ success: true, payer: wallet, asset: "USDC", scheme: "exact" });
    const sol = await runExample("pay-self-broadcast.ts", { ASSET: "SOL" });
    expect(receiptLine(sol)).toMatchObject({ success: true, asset: "SOL" });
  });

  it("spend-surplus.ts spends the credit left by the payments above", async () => {
    const before = await x402.walletBalance(wallet);
    expect(before.available).toBeGreaterThan(0n);
    const stdout = await runExample("spend-surplus.ts");
    expect(stdout).toContain(`available credit (microunits): ${before.available}`);
    const receipt = receiptLine(stdout);
    expect(receipt).toMatchObject({ success: true, scheme: "balance", transaction: "" });
    expect((await x402.walletBalance(wallet)).available).toBe(
      before.available - BigInt(Number(receipt.charged_microunits)),
    );
  });
});
