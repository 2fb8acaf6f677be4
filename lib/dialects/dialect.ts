/** The two wire formats the gateway speaks to callers and upstreams. */
export type Dialect = "openai" | "anthropic";
