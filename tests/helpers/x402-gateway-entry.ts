// A gateway process for multi-process tests: configured entirely from its environment
// (DATABASE_URL, upstream base URLs, x402 settings); prints `{"url": ...}` once listening.
import { createAppContext } from "../../compose-app";
import { loadEnv } from "../../lib/env";
import { startGatewayServer } from "../../server";

const app = await createAppContext({ env: loadEnv(process.env), sweeper: false });
const gateway = await startGatewayServer({ app, withNext: false, port: 0, host: "127.0.0.1" });
process.stdout.write(`${JSON.stringify({ url: gateway.url })}\n`);
const shutdown = () => {
  gateway.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
