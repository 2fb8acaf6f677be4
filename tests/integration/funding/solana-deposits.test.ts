import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  type Address,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { getAddMemoInstruction } from "@solana-program/memo";
import { getTransferSolInstruction } from "@solana-program/system";
import {
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getTransferCheckedInstruction,
} from "@solana-program/token";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAppContext } from "../../../compose-app";
import { deriveAssociatedTokenAddress } from "../../../lib/chains/solana/associated-token-address";
import { MEMO_PROGRAM_ADDRESS, SOLANA_DEVNET_CAIP2, WSOL_MINT } from "../../../lib/chains/solana/constants";
import { queryRows } from "../../../lib/db/client";
import { chainDeposits, depositCursors, hosts } from "../../../lib/db/schema";
import {
  type DepositChainReader,
  rpcDepositReader,
  scanDeposits,
} from "../../../lib/deposits/solana/deposit-watcher";
import { loadEnv } from "../../../lib/env";
import { ensureAccount, getAccountBalance, systemAccounts } from "../../../lib/ledger/accounts";
import { findToken } from "../../../lib/tokens/find-token";
import { registerToken } from "../../../lib/tokens/register-token";
import { extractCodeBlocks } from "../../docs/extract-snippets";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";
import { reconcileOver, removeLedgerTransaction } from "../../helpers/reconcile";
import { type LocalSolana, startLocalSolana } from "../../helpers/solana/local-solana";
import { mintAccount } from "../../helpers/solana/token-accounts";
import { signInstructions } from "../../helpers/solana/transactions";
import { createTestDatabase } from "../../helpers/test-database";
import { keyPairWithSecret } from "../../helpers/x402-chain";

const usdc = (whole: number) => BigInt(whole) * 1_000_000n;

let solana: LocalSolana;
let gateway: TestGateway;
let owner: Address;
let payer: KeyPairSigner;
/** A second 6-decimal token: "another asset" sent to the deposit wallet. */
let otherMint: Address;

beforeAll(async () => {
  solana = await startLocalSolana();
  owner = (await generateKeyPairSigner()).address;
  payer = await generateKeyPairSigner();
  await solana.airdrop(payer.address, 1_000_000_000n);
  await solana.mintUsdc(payer.address, usdc(1_000));
  await solana.createAta(owner, solana.usdcMint);
  otherMint = (await generateKeyPairSigner()).address;
  solana.svm.setAccount(
    mintAccount({
      address: otherMint,
      decimals: 6,
      supply: 0n,
      mintAuthority: solana.faucet.address,
      lamports: solana.svm.minimumBalanceForRentExemption(82n),
    }),
  );
  await solana.mintTokens(payer.address, otherMint, usdc(100));
  gateway = await startTestGateway({
    env: {
      SOLANA_DEPOSIT_ADDRESS: owner,
      SOLANA_RPC_URL: solana.rpcUrl,
      SOLANA_NETWORK: SOLANA_DEVNET_CAIP2,
      SOLANA_DEPOSIT_COMMITMENT: "confirmed",
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await solana?.close();
});

interface DepositOptions {
  amount: bigint;
  memos?: string[];
  mint?: Address;
  /** Land it even though it fails (the transfer exceeds the payer's balance). */
  failing?: boolean;
}

/** A wallet's deposit: TransferChecked to the deposit wallet's token account plus Memo instructions. */
async function deposit(options: DepositOptions): Promise<string> {
  const mint = options.mint ?? solana.usdcMint;
  const source = await deriveAssociatedTokenAddress(payer.address, mint);
  const destination = await deriveAssociatedTokenAddress(owner, mint);
  const instructions: Instruction[] = [];
  if (mint !== solana.usdcMint) {
    instructions.push(await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner, mint }));
  }
  instructions.push(
    getTransferCheckedInstruction({
      source,
      mint,
      destination,
      authority: payer,
      amount: options.amount,
      decimals: 6,
    }),
  );
  for (const memo of options.memos ?? []) {
    instructions.push(getAddMemoInstruction({ memo }, { programAddress: MEMO_PROGRAM_ADDRESS }));
  }
  const { value: lifetime } = await solana.rpc.getLatestBlockhash().send();
  const transaction = await signInstructions({ feePayer: payer, instructions, lifetime });
  return solana.rpc
    .sendTransaction(getBase64EncodedWireTransaction(transaction), {
      encoding: "base64",
      skipPreflight: options.failing === true,
    })
    .send();
}

/** SOL itself (a system transfer, not a token) to the deposit wallet, with a memo. */
async function depositSol(lamports: bigint, memo: string): Promise<string> {
  const instructions: Instruction[] = [
    getTransferSolInstruction({ source: payer, destination: owner, amount: lamports }),
    getAddMemoInstruction({ memo }, { programAddress: MEMO_PROGRAM_ADDRESS }),
  ];
  const { value: lifetime } = await solana.rpc.getLatestBlockhash().send();
  const transaction = await signInstructions({ feePayer: payer, instructions, lifetime });
  return solana.rpc
    .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" })
    .send();
}

async function admin(path: string, body?: unknown): Promise<Response> {
  return fetch(`${gateway.baseUrl}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function depositRow(signature: string) {
  const [row] = await gateway.app.database.db
    .select()
    .from(chainDeposits)
    .where(eq(chainDeposits.signature, signature));
  return row;
}

async function postingsFor(signature: string): Promise<number> {
  const rows = await queryRows<{ count: string }>(
    gateway.app.database.db,
    sql`SELECT count(*)::text AS count FROM ledger_transactions WHERE metadata->>'signature' = ${signature}`,
  );
  return Number(rows[0]?.count ?? 0);
}

async function suspense(): Promise<bigint> {
  const id = await ensureAccount(
    gateway.app.database.db,
    systemAccounts.depositSuspense.kind,
    systemAccounts.depositSuspense.ref,
  );
  return (await getAccountBalance(gateway.app.database.db, id)).balance;
}

/** A reader that dies (like a crashed process) after serving `transactions` transactions. */
function crashingReader(transactions: number): DepositChainReader {
  const reader = rpcDepositReader(solana.rpcUrl, "confirmed");
  let served = 0;
  return {
    signaturesFor: (target, options) => reader.signaturesFor(target, options),
    async transaction(signature) {
      if (served >= transactions) throw new Error("crash mid-scan");
      served += 1;
      return reader.transaction(signature);
    },
  };
}

describe("USDC deposits on Solana", () => {
  it("credits a transfer with the token's code once, however often the watcher rescans", async () => {
    const { token, depositCode } = await gateway.register();
    const signature = await deposit({ amount: usdc(5), memos: [depositCode] });
    const first = await scanDeposits(gateway.app);
    expect(first).toMatchObject({ ran: true, credited: 1, unmatched: 0 });
    expect((await gateway.balanceOf(token)).available).toBe(usdc(5));
    expect(await depositRow(signature)).toMatchObject({
      status: "credited",
      amount: usdc(5),
      memo: depositCode,
    });

    // A second pass finds nothing new; a pass from scratch (cursor lost) posts nothing again.
    expect(await scanDeposits(gateway.app)).toMatchObject({ credited: 0, duplicates: 0 });
    await gateway.app.database.db.delete(depositCursors);
    const replay = await scanDeposits(gateway.app);
    expect(replay.credited).toBe(0);
    expect(replay.duplicates).toBeGreaterThanOrEqual(1);
    expect((await gateway.balanceOf(token)).available).toBe(usdc(5));
    expect(await postingsFor(signature)).toBe(1);

    // The register response names the deposit wallet the watcher reads.
    const registered = (await (await fetch(`${gateway.baseUrl}/v1/register`, { method: "POST" })).json()) as {
      deposit_address: string;
    };
    expect(registered.deposit_address).toBe(owner);
  });

  it("survives a restart mid-scan and two watchers at once, crediting each deposit once", async () => {
    const tokens = [await gateway.register(), await gateway.register(), await gateway.register()];
    for (const [index, { depositCode }] of tokens.entries()) {
      await deposit({ amount: usdc(index + 1), memos: [depositCode] });
    }
    // The process dies after the first transaction of the pass.
    await expect(scanDeposits(gateway.app, { reader: crashingReader(1) })).rejects.toThrow(/crash/);
    expect((await gateway.balanceOf(tokens[0]?.token ?? "")).available).toBe(usdc(1));
    expect((await gateway.balanceOf(tokens[1]?.token ?? "")).available).toBe(0n);
    // Its lease was given up on the way out; the next pass (any replica) finishes the job.
    const resumed = await scanDeposits(gateway.app, { holder: "replica-b" });
    expect(resumed.credited).toBe(2);

    // Two watchers at once, even both believing they lead: each deposit is credited once.
    const more = [await gateway.register(), await gateway.register()];
    const signatures = [
      await deposit({ amount: usdc(7), memos: [more[0]?.depositCode ?? ""] }),
      await deposit({ amount: usdc(8), memos: [more[1]?.depositCode ?? ""] }),
    ];
    const pageOfOne = { pageSize: 1 };
    const results = await Promise.all([
      scanDeposits(gateway.app, { holder: "replica-a", ...pageOfOne }),
      scanDeposits(gateway.app, { holder: "replica-b" }),
      scanDeposits(gateway.app, { holder: "replica-a" }),
    ]);
    expect(results.reduce((sum, result) => sum + result.credited, 0)).toBe(2);
    expect((await gateway.balanceOf(more[0]?.token ?? "")).available).toBe(usdc(7));
    expect((await gateway.balanceOf(more[1]?.token ?? "")).available).toBe(usdc(8));
    for (const signature of signatures) expect(await postingsFor(signature)).toBe(1);
    for (const [index, { token }] of tokens.entries()) {
      expect((await gateway.balanceOf(token)).available).toBe(usdc(index + 1));
    }

    // Two processes on one Postgres database (PGlite here is private to one process).
    if (gateway.app.database.kind !== "postgres") {
      console.warn(
        "two deposit watchers on one database skipped: set TEST_DATABASE_URL to run it (.ci/run does)",
      );
      return;
    }
    const replica = await createAppContext({ env: gateway.app.env, sweeper: false });
    try {
      const last = [await gateway.register(), await gateway.register()];
      const lastSignatures = [
        await deposit({ amount: usdc(3), memos: [last[0]?.depositCode ?? ""] }),
        await deposit({ amount: usdc(4), memos: [last[1]?.depositCode ?? ""] }),
      ];
      // Each with its own lease holder, then both holding "the" lease: once either way.
      const byLease = await Promise.all([scanDeposits(gateway.app), scanDeposits(replica)]);
      const forced = await Promise.all([
        scanDeposits(gateway.app, { holder: "same" }),
        scanDeposits(replica, { holder: "same" }),
      ]);
      expect([...byLease, ...forced].reduce((sum, result) => sum + result.credited, 0)).toBe(2);
      expect((await gateway.balanceOf(last[0]?.token ?? "")).available).toBe(usdc(3));
      expect((await gateway.balanceOf(last[1]?.token ?? "")).available).toBe(usdc(4));
      for (const signature of lastSignatures) expect(await postingsFor(signature)).toBe(1);
    } finally {
      await replica.close();
    }
  });

  it("waits for the configured commitment before crediting", async () => {
    const { token, depositCode } = await gateway.register();
    solana.holdConfirmations();
    await deposit({ amount: usdc(2), memos: [depositCode] });
    expect((await scanDeposits(gateway.app)).credited).toBe(0);
    expect((await gateway.balanceOf(token)).available).toBe(0n);
    solana.releaseConfirmations();
    expect((await scanDeposits(gateway.app)).credited).toBe(1);
    expect((await gateway.balanceOf(token)).available).toBe(usdc(2));
  });

  it("parks what it cannot bind in suspense and credits no token for it", async () => {
    const { token, depositCode } = await gateway.register();
    const suspenseBefore = await suspense();
    const noMemo = await deposit({ amount: usdc(3) });
    const badMemo = await deposit({ amount: usdc(4), memos: ["thanks for the inference"] });
    const unknownCode = await deposit({ amount: usdc(6), memos: ["00112233aabbccdd"] });
    const ambiguous = await deposit({ amount: usdc(1), memos: [depositCode, "0123456789abcdef"] });
    const wrongMint = await deposit({ amount: usdc(9), memos: [depositCode], mint: otherMint });
    const failed = await deposit({ amount: usdc(5_000), memos: [depositCode], failing: true });
    const zero = await deposit({ amount: 0n, memos: [depositCode] });
    const sol = await depositSol(250_000_000n, depositCode);
    const result = await scanDeposits(gateway.app);
    expect(result).toMatchObject({ credited: 0, unmatched: 7 });
    expect(result.failed).toBeGreaterThanOrEqual(1);

    expect((await gateway.balanceOf(token)).available).toBe(0n);
    expect(await depositRow(noMemo)).toMatchObject({
      status: "unmatched",
      reason: "no_memo",
      suspenseMicrounits: usdc(3),
    });
    expect(await depositRow(badMemo)).toMatchObject({ reason: "invalid_code", suspenseMicrounits: usdc(4) });
    expect(await depositRow(unknownCode)).toMatchObject({
      reason: "unknown_code",
      suspenseMicrounits: usdc(6),
    });
    expect(await depositRow(ambiguous)).toMatchObject({
      reason: "ambiguous_code",
      suspenseMicrounits: usdc(1),
    });
    expect(await depositRow(wrongMint)).toMatchObject({
      reason: "other_asset",
      mint: otherMint,
      amount: usdc(9),
      suspenseMicrounits: 0n,
    });
    // SOL is not USDC: parked for the operator in lamports, nothing in the USDC suspense account.
    expect(await depositRow(sol)).toMatchObject({
      reason: "other_asset",
      mint: WSOL_MINT,
      amount: 250_000_000n,
      suspenseMicrounits: 0n,
    });
    expect(await depositRow(zero)).toMatchObject({
      reason: "zero_amount",
      amount: 0n,
      suspenseMicrounits: 0n,
    });
    // A failed transaction moved nothing: no row, no posting.
    expect(await depositRow(failed)).toBeUndefined();
    expect(await postingsFor(failed)).toBe(0);
    expect(await suspense()).toBe(suspenseBefore + usdc(3 + 4 + 6 + 1));

    const listed = (await (await admin("/v1/admin/deposits/unmatched")).json()) as {
      data: { signature: string; reason: string; suspense_microunits: string }[];
      suspense_microunits: string;
    };
    const bySignature = new Map(listed.data.map((row) => [row.signature, row]));
    for (const signature of [noMemo, badMemo, unknownCode, ambiguous, wrongMint, zero, sol]) {
      expect(bySignature.has(signature)).toBe(true);
    }
    expect(bySignature.get(wrongMint)).toMatchObject({ reason: "other_asset", suspense_microunits: "0" });
    expect(listed.suspense_microunits).toBe((await suspense()).toString());
  });

  it("never credits a transaction that settled an x402 quote, even with a valid deposit code", async () => {
    const { token, depositCode } = await gateway.register();
    const signature = await deposit({ amount: usdc(2), memos: [depositCode] });
    // The same transaction recorded as the payment of a quote (as a rail records one it settled).
    await gateway.app.database.db.execute(
      sql`INSERT INTO x402_quotes (id, method, path, body_hash, model, cap_microunits, created_at, expires_at, consumed_at, consumed_by)
          VALUES (gen_random_uuid(), 'POST', '/v1/x402/chat/completions', 'hash', 'gpt-4o-mini', 2000000, now(), now() + interval '5 minutes', now(), ${signature})`,
    );
    const suspenseBefore = await suspense();
    const result = await scanDeposits(gateway.app);
    expect(result).toMatchObject({ credited: 0, unmatched: 1 });
    expect(await depositRow(signature)).toMatchObject({ status: "unmatched", reason: "x402_payment" });
    expect((await gateway.balanceOf(token)).available).toBe(0n);
    expect(await suspense()).toBe(suspenseBefore + usdc(2));
  });

  it("reconciles every booked deposit with its chain receipt; a faked receipt is reported to the microunit", async () => {
    expect((await reconcileOver(gateway)).differences).toEqual([]);
    const { token, depositCode } = await gateway.register();
    const signature = await deposit({ amount: usdc(3), memos: [depositCode] });
    await scanDeposits(gateway.app);
    expect((await reconcileOver(gateway)).differences).toEqual([]);
    // A receipt the chain never saw: a deposit row and its credit for a signature that does not exist.
    const forged = "5".repeat(87);
    await gateway.app.database.db.execute(
      sql`INSERT INTO chain_deposits (signature, network, slot, amount, status, token_id, suspense_microunits)
          SELECT ${forged}, network, slot, 4000000, 'credited', token_id, 0 FROM chain_deposits WHERE signature = ${signature}`,
    );
    const restore = await removeLedgerTransaction(gateway.app.database.db, `solana:deposit:${signature}`);
    try {
      const report = await reconcileOver(gateway);
      expect(report.reconciled).toBe(false);
      // The real deposit lost its booking (3 USDC on chain, 0 booked); the forged one has no chain transaction.
      expect(report.differences).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ source: "solana", reference: signature, microunits: usdc(3).toString() }),
          expect.objectContaining({ source: "ledger" }),
        ]),
      );
      expect(report.differences.some((one) => one.reference === forged)).toBe(true);
    } finally {
      await restore();
      await gateway.app.database.db.execute(sql`DELETE FROM chain_deposits WHERE signature = ${forged}`);
    }
    expect((await reconcileOver(gateway)).differences).toEqual([]);
    expect((await gateway.balanceOf(token)).available).toBe(usdc(3));
  });

  it("reports USDC that reached the deposit wallet without a booking, to the microunit, until it is booked", async () => {
    expect((await reconcileOver(gateway)).differences).toEqual([]);
    // A stranger's transfer the watcher has not recorded yet: money held that no ledger entry explains.
    const stranger = await deposit({ amount: 2_345_678n, memos: ["not a code"] });
    const before = await reconcileOver(gateway);
    expect(before.reconciled).toBe(false);
    expect(before.differences).toEqual([
      expect.objectContaining({ source: "solana", reference: stranger, microunits: "2345678" }),
    ]);
    expect(before.unexplained_microunits).toBe("2345678");
    // Booked (in suspense, for the operator to assign or refund), it is explained.
    expect((await scanDeposits(gateway.app)).unmatched).toBe(1);
    expect((await reconcileOver(gateway)).differences).toEqual([]);
  });

  it("lets an operator assign an unmatched deposit to a token or mark it refunded", async () => {
    const unauthenticated = await fetch(`${gateway.baseUrl}/v1/admin/deposits/unmatched`);
    expect(unauthenticated.status).toBe(401);

    const { token, depositCode } = await gateway.register();
    const forToken = await deposit({ amount: usdc(11) });
    const byCode = await deposit({ amount: usdc(2), memos: ["my code is in my email"] });
    const toRefund = await deposit({ amount: usdc(12), memos: ["wrong code"] });
    const otherAsset = await deposit({ amount: usdc(1), mint: otherMint });
    await scanDeposits(gateway.app);
    const suspenseBefore = await suspense();

    const assigned = await admin(`/v1/admin/deposits/${forToken}/assign`, {
      api_token: token,
      note: "ticket 42",
    });
    expect(assigned.status).toBe(200);
    expect(((await assigned.json()) as { deposit: Record<string, unknown> }).deposit).toMatchObject({
      status: "assigned",
      suspense_microunits: "0",
      resolution_note: "ticket 42",
    });
    expect((await gateway.balanceOf(token)).available).toBe(usdc(11));
    expect(await suspense()).toBe(suspenseBefore - usdc(11));
    // Once only.
    const again = await admin(`/v1/admin/deposits/${forToken}/assign`, { api_token: token, note: "again" });
    expect(again.status).toBe(409);
    expect((await gateway.balanceOf(token)).available).toBe(usdc(11));
    // Support is told the deposit code, never the token itself.
    expect(
      (
        await admin(`/v1/admin/deposits/${byCode}/assign`, {
          deposit_code: depositCode,
          api_token: token,
          note: "x",
        })
      ).status,
    ).toBe(400);
    const assignedByCode = await admin(`/v1/admin/deposits/${byCode}/assign`, {
      deposit_code: depositCode.toUpperCase(),
      note: "support ticket 43",
    });
    expect(assignedByCode.status).toBe(200);
    expect((await gateway.balanceOf(token)).available).toBe(usdc(13));
    expect(await suspense()).toBe(suspenseBefore - usdc(13));

    const refundSignature = "5".repeat(88);
    const refunded = await admin(`/v1/admin/deposits/${toRefund}/refund`, {
      note: "sent back to the sender",
      refund_signature: refundSignature,
    });
    expect(refunded.status).toBe(200);
    expect(await depositRow(toRefund)).toMatchObject({
      status: "refunded",
      refundSignature,
      suspenseMicrounits: 0n,
    });
    expect(await suspense()).toBe(suspenseBefore - usdc(13) - usdc(12));
    expect(
      (await admin(`/v1/admin/deposits/${toRefund}/assign`, { api_token: token, note: "x" })).status,
    ).toBe(409);

    // Another asset never entered the USDC books: it can be refunded (recorded), not credited.
    expect(
      (await admin(`/v1/admin/deposits/${otherAsset}/assign`, { api_token: token, note: "x" })).status,
    ).toBe(409);
    expect(
      (await admin(`/v1/admin/deposits/${otherAsset}/refund`, { note: "returned the tokens" })).status,
    ).toBe(200);
    expect(await suspense()).toBe(suspenseBefore - usdc(25));

    expect((await admin(`/v1/admin/deposits/${"1".repeat(88)}/refund`, { note: "none" })).status).toBe(404);
    const listed = (await (await admin("/v1/admin/deposits/unmatched")).json()) as {
      data: { signature: string }[];
    };
    const remaining = listed.data.map((row) => row.signature);
    for (const signature of [forToken, toRefund, otherAsset]) expect(remaining).not.toContain(signature);
  });

  it("bonds a host with its POD-BOND code and activates it once 50 USDC have arrived", async () => {
    const enrolled = await fetch(`${gateway.baseUrl}/v1/host/enroll`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ display_name: "bonded host", wallet: payer.address }),
    });
    expect(enrolled.status).toBe(201);
    const host = (await enrolled.json()) as {
      host_token: string;
      provider_id: string;
      bond: { deposit_code: string; destination: string };
    };
    expect(host.bond.destination).toBe(owner);
    const bondAccount = await ensureAccount(gateway.app.database.db, "bond", host.provider_id);
    const statusOf = async () =>
      (await gateway.app.database.db.select().from(hosts).where(eq(hosts.id, host.provider_id)))[0]?.status;

    const first = await deposit({ amount: usdc(20), memos: [host.bond.deposit_code] });
    expect(await scanDeposits(gateway.app)).toMatchObject({ bonded: 1, credited: 0 });
    expect(await statusOf()).toBe("pending");
    expect((await getAccountBalance(gateway.app.database.db, bondAccount)).balance).toBe(usdc(20));
    expect(await depositRow(first)).toMatchObject({ status: "bonded", hostId: host.provider_id });
    const profile = await fetch(`${gateway.baseUrl}/v1/host/profile`, {
      headers: { authorization: `Bearer ${host.host_token}` },
    });
    expect(await profile.json()).toMatchObject({
      status: "pending",
      bond: { held_microunits: 20_000_000, amount_microunits: 50_000_000 },
    });

    await deposit({ amount: usdc(30), memos: [host.bond.deposit_code.toLowerCase()] });
    expect(await scanDeposits(gateway.app)).toMatchObject({ bonded: 1 });
    expect(await statusOf()).toBe("active");
    expect((await getAccountBalance(gateway.app.database.db, bondAccount)).balance).toBe(usdc(50));

    // A bond sent after retirement is not booked to the bond: the operator decides.
    const retiring = (await (
      await fetch(`${gateway.baseUrl}/v1/host/enroll`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ display_name: "retiring host", wallet: payer.address }),
      })
    ).json()) as { host_token: string; provider_id: string; bond: { deposit_code: string } };
    const retire = await fetch(`${gateway.baseUrl}/v1/host/retire`, {
      method: "POST",
      headers: { authorization: `Bearer ${retiring.host_token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(retire.status).toBeLessThan(300);
    const late = await deposit({ amount: usdc(50), memos: [retiring.bond.deposit_code] });
    expect(await scanDeposits(gateway.app)).toMatchObject({ bonded: 0, unmatched: 1 });
    expect(await depositRow(late)).toMatchObject({ reason: "host_retired", suspenseMicrounits: usdc(50) });
  });

  it("the funding guide's deposit-usdc.ts sends a deposit that is credited", async () => {
    const repoRoot = path.resolve(import.meta.dirname, "../../..");
    const guide = readFileSync(path.join(repoRoot, "content/docs/using/funding.mdx"), "utf8");
    const block = extractCodeBlocks(guide).find((candidate) =>
      candidate.meta.includes('title="deposit-usdc.ts"'),
    );
    if (!block) throw new Error("the funding guide has no deposit-usdc.ts");
    // Inside the repository so the example's imports resolve from its node_modules; never committed.
    const scratch = path.join(repoRoot, "node_modules/.cache/pod-deposit-doc-examples");
    mkdirSync(scratch, { recursive: true });
    const file = path.join(scratch, "deposit-usdc.mts");
    writeFileSync(file, block.code);

    const wallet = await keyPairWithSecret();
    await solana.airdrop(wallet.signer.address, 100_000_000n);
    await solana.mintUsdc(wallet.signer.address, usdc(10));
    const { token } = await gateway.register();
    const child = new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", file],
        {
          env: {
            NODE_ENV: "test",
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: process.env.HOME ?? "/tmp",
            POD_BASE_URL: gateway.baseUrl,
            POD_TOKEN: token,
            SOLANA_SECRET_KEY: wallet.secret,
            AMOUNT_USDC: "2.5",
          },
          timeout: 90_000,
        },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : 1, output: `${stdout}\n${stderr}` }),
      );
    });
    // The test gateway runs no maintenance loop: drive the watcher while the script waits.
    let done = false;
    const watching = (async () => {
      while (!done) {
        await scanDeposits(gateway.app);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const result = await child;
    done = true;
    await watching;
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/sent 2\.5 USDC: \w+/);
    expect(result.output).toContain("credited 2500000 microunits (credited)");
    expect((await gateway.balanceOf(token)).available).toBe(2_500_000n);
  });

  it("runs in the maintenance loop of a gateway with a deposit wallet", async () => {
    const database = await createTestDatabase();
    const app = await createAppContext({
      env: loadEnv({
        NODE_ENV: "test",
        LOG_LEVEL: "silent",
        POD_DATA_DIR: database.dataDir,
        ...(database.url ? { DATABASE_URL: database.url } : {}),
        SOLANA_DEPOSIT_ADDRESS: owner,
        SOLANA_RPC_URL: solana.rpcUrl,
        SOLANA_NETWORK: SOLANA_DEVNET_CAIP2,
        SOLANA_DEPOSIT_POLL_SECONDS: "1",
      }),
    });
    try {
      const { token, depositCode } = await registerToken(app.database.db);
      await deposit({ amount: usdc(6), memos: [depositCode] });
      const record = await findToken(app.database.db, token);
      let available = 0n;
      for (let attempt = 0; attempt < 200 && available === 0n; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        available = (await getAccountBalance(app.database.db, record?.accountId ?? 0n)).available;
      }
      expect(available).toBe(usdc(6));
    } finally {
      await app.close();
      await database.drop();
    }
  }, 90_000);
});
