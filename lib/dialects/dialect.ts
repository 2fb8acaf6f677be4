import type { CallerDialect, Dialect } from "./translate/ir";

export type { CallerDialect, Dialect } from "./translate/ir";

/** The error envelope a caller's SDK reads: the Responses API uses OpenAI's. */
export function errorDialectOf(dialect: CallerDialect): Dialect {
  return dialect === "responses" ? "openai" : dialect;
}
