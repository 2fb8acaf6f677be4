import { and, eq } from "drizzle-orm";
import { accounts } from "../../lib/db/schema";
import { getAccountBalance } from "../../lib/ledger/accounts";
import { startTestGateway, type TestGateway } from "./gateway";
import { startX402Chain, type X402Chain } from "./x402-chain";

/** A test gateway wired to a local chain for x402, with helpers to send the same request twice. */
export interface X402TestGateway {
  gateway: TestGateway;
  chain: X402Chain;
  /** POSTs `body` (a string, sent as is) to the x402 OpenAI or Anthropic endpoint with extra headers. */
  post(dialect: "openai" | "anthropic", body: string, headers?: Record<string, string>): Promise<Response>;
  /** Wallet surplus balance in microunits (0 when the wallet never received credit). */
  walletBalance(wallet: string): Promise<{ balance: bigint; held: bigint; available: bigint }>;
  /** Requests the fake upstreams received so far, all providers together. */
  upstreamRequests(): number;
  close(): Promise<void>;
}

export async function startX402TestGateway(
  options: { env?: Record<string, string>; chain?: X402Chain } = {},
): Promise<X402TestGateway> {
  const chain = options.chain ?? (await startX402Chain());
  const gateway = await startTestGateway({ env: chain.gatewayEnv(options.env) });
  return {
    gateway,
    chain,
    post(dialect, body, headers = {}) {
      const path = dialect === "openai" ? "/proxy/x402/v1/chat/completions" : "/proxy/x402/v1/messages";
      return fetch(`${gateway.baseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
    },
    async walletBalance(wallet) {
      const rows = await gateway.app.database.db
        .select({ id: accounts.id })
        .from(accounts)
        .where(and(eq(accounts.kind, "wallet"), eq(accounts.ref, wallet)));
      const id = rows[0]?.id;
      if (id === undefined) return { balance: 0n, held: 0n, available: 0n };
      return getAccountBalance(gateway.app.database.db, id);
    },
    upstreamRequests() {
      return (
        gateway.openai.requests.length +
        gateway.openrouter.requests.length +
        gateway.anthropic.requests.length
      );
    },
    async close() {
      await gateway.close();
      if (!options.chain) await chain.close();
    },
  };
}

/** An OpenAI-dialect body; `content` can carry fake-upstream directives such as `[fake:tokens=3]`. */
export function chatBody(content: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    model: "gpt-4o-mini",
    max_tokens: 50,
    messages: [{ role: "user", content }],
    ...extra,
  });
}
