/**
 * What may leave the process in a log line. Database drivers put a failed query's parameters
 * (relay-key ciphertext, credit metadata) into the error message, and connection errors carry
 * the connection URL with its password: both are cut before anything is written.
 */

const urlPassword = /\b([a-z][a-z0-9+.-]*:\/\/[^:/?#\s@]*):[^@/?#\s]*@/gi;

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`, anywhere in a text. */
export function redactUrlPasswords(text: string): string {
  return text.replace(urlPassword, "$1:***@");
}

/** Drizzle's "Failed query: <sql>\nparams: <values>": keep the statement, drop the values. */
function withoutQueryParams(message: string): string {
  const at = message.indexOf("\nparams:");
  return at === -1 ? message : message.slice(0, at);
}

export interface LoggedError {
  name: string;
  message: string;
  code?: string;
  cause?: LoggedError;
}

/** An error as a log field: name, redacted message, driver code and cause chain (depth-bounded). */
export function loggableError(error: Error, depth = 0): LoggedError {
  const logged: LoggedError = {
    name: error.name,
    message: redactUrlPasswords(withoutQueryParams(error.message)),
  };
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") logged.code = code;
  if (error.cause instanceof Error && depth < 3) logged.cause = loggableError(error.cause, depth + 1);
  return logged;
}
