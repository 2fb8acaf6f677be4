/** A catalog change log row's fields that changed, "field: before → after", in words for the console. */
export function describeChange(before: unknown, after: unknown): string {
  const was = asRecord(before);
  const now = asRecord(after);
  return Object.keys(now)
    .filter((field) => JSON.stringify(was[field]) !== JSON.stringify(now[field]))
    .map(
      (field) =>
        `${field}: ${was[field] === undefined ? "" : `${String(was[field])} → `}${String(now[field])}`,
    )
    .join(" · ");
}

/** A jsonb column as an object (a driver may hand it back as its JSON text). */
function asRecord(value: unknown): Record<string, unknown> {
  if (typeof value === "string") {
    try {
      return asRecord(JSON.parse(value));
    } catch {
      return {};
    }
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
