// Issuing an API key (decisions §7): the secret is shown once, only its SHA-256 digest is stored.
// Listing and revoking go straight to the Store (cli/keys-command.ts).
import { randomBytes } from 'node:crypto'
import {
  type ApiKeyRecord,
  digestKey,
  formatKey,
  KEY_RANDOM_BYTES,
  KEY_SHOWN_CHARS,
} from '../domain/api-key.ts'
import type { Clock } from '../ports/clock.ts'
import type { Store } from '../ports/store.ts'

export type IssuedKey = { record: ApiKeyRecord; key: string }

export async function issueKey(store: Store, label: string, clock: Clock): Promise<IssuedKey> {
  const issued = newKey(label, clock)
  await store.createKey(issued.record)
  return issued
}

/** A new key and its record, not yet stored: the caller decides when it may exist. */
export function newKey(label: string, clock: Clock): IssuedKey {
  const key = formatKey(randomBytes(KEY_RANDOM_BYTES))
  const record: ApiKeyRecord = {
    id: `key_${randomBytes(6).toString('hex')}`,
    label,
    digest: digestKey(key),
    prefix: key.slice(0, KEY_SHOWN_CHARS),
    createdAt: clock.now(),
    lastUsedAt: null,
    revokedAt: null,
  }
  return { record, key }
}
