import { DatabaseUnavailableError } from "./db/database-unavailable";
import { EnvError } from "./env";
import { redactUrlPasswords } from "./log-redaction";

/**
 * Ends a gateway that cannot start with one clear line on stderr instead of a stack trace:
 * the operator needs the cause, and a raw driver error would print the database password.
 */
function exitOnStartFailure(error: unknown): never {
  const reason =
    error instanceof DatabaseUnavailableError || error instanceof EnvError
      ? error.message
      : redactUrlPasswords(
          error instanceof Error ? (error.message.split("\n")[0] ?? error.name) : String(error),
        );
  process.stderr.write(`pod gateway: cannot start: ${reason}\n`);
  process.exit(1);
}

/** Runs a start-up step; a failure (thrown or rejected) ends the process with one line. */
export async function startOrExit<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    exitOnStartFailure(error);
  }
}
