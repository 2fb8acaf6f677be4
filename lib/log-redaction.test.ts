import { DrizzleQueryError } from "drizzle-orm/errors";
import { afterEach, describe, expect, it, vi } from "vitest";
import { log } from "./log";
import { loggableError, redactUrlPasswords } from "./log-redaction";

describe("log redaction", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("hides the password of any URL in a text", () => {
    expect(redactUrlPasswords("connect postgres://pod:s3cr%40t@db.internal:5432/pod failed")).toBe(
      "connect postgres://pod:***@db.internal:5432/pod failed",
    );
    expect(redactUrlPasswords("redis://:hunter2@127.0.0.1:6379")).toBe("redis://:***@127.0.0.1:6379");
    expect(redactUrlPasswords("https://example.com/a:b@c")).toBe("https://example.com/a:b@c");
  });

  it("logs a failed query's statement and cause, never its parameters", () => {
    // The error drizzle throws for any failed statement, with the driver's error as its cause.
    const secret = "ciphertext-that-must-not-leak";
    const driverError = Object.assign(new Error('relation "no_such_table" does not exist'), {
      code: "42P01",
    });
    const error = new DrizzleQueryError(
      "insert into no_such_table (sealed_key) values ($1)",
      [secret],
      driverError,
    );
    expect(error.message).toContain(secret);

    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    log.error("query failed", { error, url: "postgres://pod:s3cret@127.0.0.1/pod" });
    const written = lines.join("");
    expect(written).not.toContain(secret);
    expect(written).not.toContain("s3cret");
    expect(written).toContain("no_such_table");
    const logged = loggableError(error);
    expect(logged.cause).toEqual({
      name: "Error",
      message: 'relation "no_such_table" does not exist',
      code: "42P01",
    });
    expect(JSON.stringify(logged)).not.toContain(secret);
  });
});
