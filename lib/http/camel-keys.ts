type CamelCase<Key extends string> = Key extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : Key;

/** A wire body's keys as the domain spells them: `cache_read_per_1m` → `cacheReadPer1m`. */
export type CamelKeys<Body> = { [Key in keyof Body as Key extends string ? CamelCase<Key> : Key]: Body[Key] };

/**
 * The API speaks snake_case and lib/ camelCase; a validated body crosses over here, once,
 * rather than in a hand-written field-by-field map per route that can drop a field unnoticed.
 */
export function camelKeys<Body extends Record<string, unknown>>(body: Body): CamelKeys<Body> {
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [
      key.replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase()),
      value,
    ]),
  ) as CamelKeys<Body>;
}
