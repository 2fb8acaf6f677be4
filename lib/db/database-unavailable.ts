import { redactUrlPasswords } from "../log-redaction";

/**
 * The database could not be opened or migrated at start. Its message is one line that names
 * the cause and the database (password redacted), for the operator reading the console.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = "DatabaseUnavailableError";
}

const causes: Record<string, string> = {
  ECONNREFUSED: "refused the connection (is Postgres running and listening there?)",
  ENOTFOUND: "has a host name that does not resolve",
  EAI_AGAIN: "has a host name that does not resolve",
  ETIMEDOUT: "did not answer in time",
  ECONNRESET: "closed the connection",
  "3D000": "does not exist (create it first)",
  "28P01": "rejected the user name or password",
  "28000": "rejected the connection (pg_hba.conf or role)",
  ERR_INVALID_URL: "is not a valid URL",
};

function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth += 1)
    current = current.cause;
  return current;
}

function describe(target: string, error: unknown): string {
  const cause = rootCause(error);
  const code = cause instanceof Error ? (cause as { code?: unknown }).code : undefined;
  const known = typeof code === "string" ? causes[code] : undefined;
  if (known !== undefined) return `${target} ${known}`;
  const message = cause instanceof Error ? cause.message.split("\n")[0] : String(cause);
  return `${target} failed: ${redactUrlPasswords(message ?? "unknown error")}`;
}

/** Wraps a start-up step so a failure surfaces as one redacted line. */
export async function asDatabaseStartStep<T>(url: string | undefined, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const target = url === undefined ? "the embedded database" : `the database ${redactUrlPasswords(url)}`;
    throw new DatabaseUnavailableError(describe(target, error), { cause: error });
  }
}
