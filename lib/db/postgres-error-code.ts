/**
 * The SQLSTATE a Postgres error carries (postgres.js and PGlite put it on `code`), looked for
 * through a few `cause` wrappers, since drivers and ORMs may wrap the error they were given.
 */
export function postgresErrorCode(error: unknown): string | undefined {
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth += 1) {
    if ("code" in current && typeof current.code === "string") return current.code;
    current = "cause" in current ? current.cause : undefined;
  }
  return undefined;
}
