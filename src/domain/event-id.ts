// Stream event ids: `<epoch>-<seq>`, opaque to clients. The epoch names the deployment (one store),
// so an id from another store is recognised as foreign; the zero-padded seq keeps ids strictly
// increasing as strings too.
const SEQ_WIDTH = 12
const EPOCH_PATTERN = /^[0-9a-z]{4,32}$/
const EPOCH_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz'
const EPOCH_LENGTH = 8

/**
 * A deployment epoch: 8 characters of [0-9a-z], each picked by `randomBelow(n)` (an integer in
 * [0, n)); the stores pass the CSPRNG's randomInt, so two stores practically never share one.
 */
export function generateEpoch(randomBelow: (n: number) => number): string {
  let epoch = ''
  for (let i = 0; i < EPOCH_LENGTH; i++) epoch += EPOCH_ALPHABET[randomBelow(EPOCH_ALPHABET.length)]
  return epoch
}

export type ParsedEventId = { epoch: string; seq: number }

export function formatEventId(epoch: string, seq: number): string {
  return `${epoch}-${String(seq).padStart(SEQ_WIDTH, '0')}`
}

/** Parses an id sent back by a client; anything malformed is `null` (treated as unknown, never an error). */
export function parseEventId(raw: string | undefined | null): ParsedEventId | null {
  if (raw == null || raw.length > 64) return null
  const dash = raw.lastIndexOf('-')
  if (dash <= 0) return null
  const epoch = raw.slice(0, dash)
  const digits = raw.slice(dash + 1)
  if (!EPOCH_PATTERN.test(epoch) || !/^[0-9]{1,15}$/.test(digits)) return null
  const seq = Number(digits)
  return Number.isSafeInteger(seq) ? { epoch, seq } : null
}
