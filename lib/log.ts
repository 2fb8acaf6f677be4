import { loggableError, redactUrlPasswords } from "./log-redaction";

type Level = "error" | "warn" | "info" | "debug";
const order: Record<Level | "silent", number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };

let threshold: Level | "silent" = "info";

export function setLogLevel(level: Level | "silent"): void {
  threshold = level;
}

/** Path tokens are credentials: never let one reach a log line. */
export function redactPath(path: string): string {
  return path.replace(/\/proxy\/(?!x402\/)[^/]+/, "/proxy/<token>");
}

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  if (order[level] > order[threshold]) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...fields }, (_key, value) =>
    typeof value === "bigint"
      ? value.toString()
      : value instanceof Error
        ? loggableError(value)
        : typeof value === "string"
          ? redactUrlPasswords(value)
          : value,
  );
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${line}\n`);
}

export const log = {
  error: (message: string, fields: Record<string, unknown> = {}) => write("error", message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write("warn", message, fields),
  info: (message: string, fields: Record<string, unknown> = {}) => write("info", message, fields),
  debug: (message: string, fields: Record<string, unknown> = {}) => write("debug", message, fields),
};
