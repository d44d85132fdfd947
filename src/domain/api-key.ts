// API keys: 192 random bits behind the `cs_` prefix, kept only as a SHA-256 digest. The key format
// lives here alone: how a key is written, what looks like one, and how one is masked in text.
import { hash } from 'node:crypto'

export const KEY_PREFIX = 'cs_'
/** random bytes in a key: 192 bits, so the 42 that listings show leave 150 unknown (decisions §7: 128) */
export const KEY_RANDOM_BYTES = 24
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

/** URL-safe base64 of the random bytes, so the key pastes into a header or a shell unquoted. */
export function formatKey(random: Uint8Array): string {
  return `${KEY_PREFIX}${Buffer.from(random).toString('base64url')}`
}

const KEY_SHAPE = /^cs_[A-Za-z0-9_-]{20,100}$/

// What counts as a key in text a client wrote (a URL, a header value): the prefix in any capitals,
// and any character of it or of the rest percent-encoded, since a URL encoder may escape `_` or
// more and the log keeps the target as sent. The characters after the prefix are the secret.
const KEY_TEXT_SOURCE = '(?:c|%63)(?:s|%73)(?:_|%5f)(?:[a-z0-9_-]|%[0-9a-f]{2}){20,}'
const KEY_IN_TEXT = new RegExp(KEY_TEXT_SOURCE, 'gi')
const KEY_SOMEWHERE = new RegExp(KEY_TEXT_SOURCE, 'i')

/** Whether the text can hold a key at all: every spelling of the prefix has a `_` or a `%`. */
function mayHoldKey(text: string): boolean {
  return text.includes('_') || text.includes('%')
}

/** A key must look like one before it is worth hashing and looking up. */
export function looksLikeKey(token: string): boolean {
  return KEY_SHAPE.test(token)
}

/** Whether the text holds something shaped like a key, however it is written. */
export function containsKey(text: string): boolean {
  return mayHoldKey(text) && KEY_SOMEWHERE.test(text)
}

/** Masks anything shaped like a key (decisions §7): a client may paste one into a URL. */
export function maskKeys(text: string): string {
  return mayHoldKey(text) ? text.replace(KEY_IN_TEXT, `${KEY_PREFIX}[redacted]`) : text
}

/** The hex SHA-256 under which a key is stored and looked up; the key itself is never kept. */
export function digestKey(key: string): string {
  // One-shot hash: no Hash object per call (this runs on every authenticated request).
  return hash('sha256', key, 'hex')
}
