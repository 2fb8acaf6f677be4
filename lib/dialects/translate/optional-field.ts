/** `{ key: value }` when there is a value: optional IR fields are absent, never `undefined`. */
export function optional<Key extends string, Value>(
  key: Key,
  value: Value | undefined,
): Partial<Record<Key, Value>> {
  return value === undefined ? {} : ({ [key]: value } as Record<Key, Value>);
}
