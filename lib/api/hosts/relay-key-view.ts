import type { RelayKeyView } from "../../relays/relay-keys";

/** A relay key as its host sees it: never the key itself. */
export function relayKeyView(key: RelayKeyView) {
  return {
    id: key.id,
    upstream: key.upstream,
    label: key.label,
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
