// Starts a gateway against the instant upstream and prints its URL and a funded token.
import { createAppContext } from "../lib/app-context";
import { loadEnv } from "../lib/env";
import { startGatewayServer } from "../server";

const upstreamUrl = process.argv[2];
if (!upstreamUrl) throw new Error("usage: gateway-entry <upstream base url>");
const env = loadEnv({
  ...process.env,
  PORT: "0",
  HOST: "127.0.0.1",
  LOG_LEVEL: "error",
  ADMIN_TOKEN: "bench-admin",
  OPENAI_API_KEY: "sk-bench",
  OPENAI_BASE_URL: upstreamUrl,
  POD_DATA_DIR: process.env.DATABASE_URL ? "./.data" : (process.env.POD_DATA_DIR ?? "memory://"),
});
const app = await createAppContext({ env, sweeper: false });
const gateway = await startGatewayServer({ app, withNext: false });
const registered = (await (await fetch(`${gateway.url}/v1/register`, { method: "POST" })).json()) as {
  api_token: string;
};
await fetch(`${gateway.url}/v1/admin/credits`, {
  method: "POST",
  headers: { authorization: "Bearer bench-admin", "content-type": "application/json" },
  body: JSON.stringify({
    api_token: registered.api_token,
    amount_microunits: "1000000000000",
    reason: "bench",
  }),
});
process.stdout.write(
  `${JSON.stringify({ url: gateway.url, token: registered.api_token, database: app.database.kind })}\n`,
);

// The bench asks for this process's CPU time over IPC: a per-request cost that does not
// depend on how busy the rest of the machine is.
process.on("message", (message) => {
  if (message === "cpu") process.send?.(process.cpuUsage());
});
