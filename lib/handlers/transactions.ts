import { sql } from "drizzle-orm";
import type { AppContext } from "../app-context";
import { queryRows } from "../db/client";
import { badRequest } from "../errors/gateway-error";
import { errorResponse, jsonResponse } from "../http/responses";
import { authenticateToken } from "../tokens/authenticate-token";

interface TransactionRow {
  entry_id: string;
  transaction_id: string;
  kind: string;
  amount: string;
  created_at: Date | string;
  metadata: Record<string, unknown>;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
}

const maxLimit = 200;

/** GET /proxy/<token>/transactions – the token's credits and debits, newest first, with usage per request. */
export async function handleTransactions(
  app: AppContext,
  request: Request,
  token: string,
): Promise<Response> {
  try {
    const record = await authenticateToken(app.database.db, token);
    const params = new URL(request.url).searchParams;
    const limit = Number(params.get("limit") ?? "50");
    if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit)
      throw badRequest(`limit must be an integer from 1 to ${maxLimit}`);
    const before = params.get("before");
    if (before !== null && !/^[0-9]{1,19}$/.test(before))
      throw badRequest("before must be a cursor from next_cursor");
    const rows = await queryRows<TransactionRow>(
      app.database.db,
      sql`SELECT e.id::text AS entry_id, t.id AS transaction_id, t.kind, e.amount::text AS amount, e.created_at, t.metadata,
                 u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens
          FROM ledger_entries e
          JOIN ledger_transactions t ON t.id = e.transaction_id
          LEFT JOIN usage_records u ON u.request_id = t.metadata->>'request_id'
          WHERE e.account_id = ${record.accountId} ${before === null ? sql`` : sql`AND e.id < ${BigInt(before)}`}
          ORDER BY e.id DESC
          LIMIT ${limit}`,
    );
    const transactions = rows.map((row) => ({
      id: row.transaction_id,
      kind: row.kind,
      amount_microunits: Number(row.amount),
      created_at: new Date(row.created_at).toISOString(),
      ...(row.kind === "inference"
        ? {
            request_id: row.metadata.request_id ?? null,
            model: row.metadata.model ?? null,
            route: row.metadata.route ?? null,
            provider_id: row.metadata.provider ?? null,
            input_tokens: row.input_tokens,
            output_tokens: row.output_tokens,
            cache_read_tokens: row.cache_read_tokens,
            cache_write_tokens: row.cache_write_tokens,
          }
        : { reason: row.metadata.reason ?? null }),
    }));
    const last = rows.at(-1);
    return jsonResponse(
      { api_token: token, transactions, next_cursor: rows.length === limit && last ? last.entry_id : null },
      200,
      { "cache-control": "no-store" },
    );
  } catch (error) {
    return errorResponse("openai", error);
  }
}
