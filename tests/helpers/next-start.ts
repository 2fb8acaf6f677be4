import { createAppContext } from "../../compose-app";
import { loadEnv } from "../../lib/env";

/**
 * The next start of a gateway that a test stopped or killed, in this process, on the same
 * environment (database, journal directory): what replays that gateway's journal.
 */
export function nextStart(env: Record<string, string>) {
  return createAppContext({
    env: loadEnv({ ...env, NODE_ENV: "test", LOG_LEVEL: "silent" }),
    sweeper: false,
  });
}
