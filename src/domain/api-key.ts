// API keys: 160 random bits behind the `cs_` prefix, kept only as a SHA-256 digest.
import { hash } from 'node:crypto'

export const KEY_PREFIX = 'cs_'
/** characters of the key (prefix included) shown in listings */
export const KEY_SHOWN_CHARS = 10

export type ApiKeyRecord = {
  id: string
  label: string
  /** hex SHA-256 of the whole key */
  digest: string
  /** first KEY_SHOWN_CHARS characters of the key */
  prefix: string
  createdAt: number
  lastUsedAt: number | null
  revokedAt: number | null
}

/** A key must look like one before it is worth hashing and looking up. */
export function looksLikeKey(token: string): boolean {
  return /^cs_[A-Za-z0-9_-]{20,100}$/.test(token)
}

/** The hex SHA-256 under which a key is stored and looked up; the key itself is never kept. */
export function digestKey(key: string): string {
  // One-shot hash: no Hash object per call (this runs on every authenticated request).
  return hash('sha256', key, 'hex')
}
