// The keys both SQL stores use in their `meta` and `leases` tables, written once so the SQLite and
// PostgreSQL stores (and their migrations) can never drift apart on a name.

/** The deployment epoch, written by the first migration: the prefix of every event id. */
export const EPOCH_KEY = 'epoch'

/** Wall ms of the engine's last heartbeat. */
export const HEARTBEAT_KEY = 'engine_heartbeat'

/** There is one engine lease per deployment; this is its name in `leases`. */
export const ENGINE_LEASE = 'engine'

/** Deployment settings (Store.getSetting) live under this prefix, apart from the store's own keys. */
export function settingKey(key: string): string {
  return `setting:${key}`
}
