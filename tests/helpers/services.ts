/**
 * Tests that need an outside service use it only when it is configured, and otherwise skip
 * with a printed reason instead of hanging on a connection that will never open.
 * `.ci/run` configures every one of them.
 */
export interface OptionalService {
  url: string | undefined;
  /** Why the suite skips, or undefined when the service is configured. */
  skipReason: string | undefined;
}

function optionalService(variable: string, what: string, why = ""): OptionalService {
  const url = process.env[variable];
  if (url) return { url, skipReason: undefined };
  const skipReason = `${what} tests skipped${why}: set ${variable} to run them (.ci/run does)`;
  console.warn(skipReason);
  return { url: undefined, skipReason };
}

export const testRedis = (): OptionalService => optionalService("TEST_REDIS_URL", "Redis");

/** A Postgres server that several gateway processes share: PGlite lives inside one process. */
export const testSharedPostgres = (what: string): OptionalService =>
  optionalService(
    "TEST_DATABASE_URL",
    what,
    " (they need a Postgres server two processes share; PGlite lives inside one)",
  );
