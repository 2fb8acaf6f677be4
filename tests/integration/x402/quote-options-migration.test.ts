import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";

const drizzleDir = resolve(import.meta.dirname, "../../../drizzle");

async function apply(database: PGlite, file: string): Promise<void> {
  const text = readFileSync(resolve(drizzleDir, file), "utf8");
  for (const statement of text.split("--> statement-breakpoint")) {
    if (statement.trim() !== "") await database.exec(statement);
  }
}

const database = new PGlite();
afterAll(async () => {
  await database.close();
});

describe("migration 0003 moves quote amounts into option rows", () => {
  it("keeps every option an existing quote offered, in accepts order, with its rail details", async () => {
    for (const file of [
      "0000_create_ledger_and_tokens.sql",
      "0001_add_hosts_and_relays.sql",
      "0002_add_x402_quotes.sql",
    ]) {
      await apply(database, file);
    }
    const common = `'POST', '/proxy/x402/v1/chat/completions', 'h', 'gpt-4o-mini', 'solana:devnet', 'PayTo', now(), now() + interval '5 minutes'`;
    await database.exec(`
      INSERT INTO x402_quotes (id, method, path, body_hash, model, network, pay_to, created_at, expires_at,
        cap_microunits, cap_lamports, micro_usd_per_sol, standard_microunits, standard_lamports, fee_payer)
      VALUES ('00000000-0000-4000-8000-000000000001', ${common}, 35, 234, 150000000, 10000, 66667, 'FeePayer'),
             ('00000000-0000-4000-8000-000000000002', ${common}, 40, NULL, NULL, 10000, NULL, NULL);`);
    await apply(database, "0003_move_x402_quote_amounts_to_options.sql");

    const rows = await database.query<{
      quote_id: string;
      position: number;
      rail: string;
      asset: string;
      amount: string;
      details: Record<string, string>;
    }>(
      "SELECT quote_id, position, rail, asset, amount::text, details FROM x402_quote_options ORDER BY quote_id, position",
    );
    expect(rows.rows).toEqual([
      {
        quote_id: "00000000-0000-4000-8000-000000000001",
        position: 0,
        rail: "solana-native",
        asset: "USDC",
        amount: "35",
        details: {},
      },
      {
        quote_id: "00000000-0000-4000-8000-000000000001",
        position: 1,
        rail: "solana-native",
        asset: "SOL",
        amount: "234",
        details: { micro_usd_per_sol: "150000000" },
      },
      {
        quote_id: "00000000-0000-4000-8000-000000000001",
        position: 2,
        rail: "solana-exact",
        asset: "USDC",
        amount: "10000",
        details: { fee_payer: "FeePayer" },
      },
      {
        quote_id: "00000000-0000-4000-8000-000000000001",
        position: 3,
        rail: "solana-exact",
        asset: "SOL",
        amount: "66667",
        details: { fee_payer: "FeePayer", micro_usd_per_sol: "150000000" },
      },
      {
        quote_id: "00000000-0000-4000-8000-000000000002",
        position: 0,
        rail: "solana-native",
        asset: "USDC",
        amount: "40",
        details: {},
      },
    ]);
    const columns = await database.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'x402_quotes'",
    );
    expect(columns.rows.map((row) => row.column_name)).not.toContain("cap_lamports");
    expect(columns.rows.map((row) => row.column_name)).toContain("cap_microunits");
  });
});
