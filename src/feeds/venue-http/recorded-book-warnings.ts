// A replay asks for a book at every reading of every contest, so a tape whose recorded books the
// adapter rejects (the venue changed the book's shape) would log a line per reading (~80 a contest).
// The first rejection of each field is logged, naming its ticker; the later ones are skipped as
// before, without a line. Shared by the recorded venues, so they say it alike.
import type { Logger } from '../../ports/logger.ts'

/** Logs a rejected recorded book the first time its field is met. */
export function recordedBookWarnings(
  logger: Logger,
  venue: string,
): (fields: { ticker: string; field: string; side?: string }) => void {
  const seen = new Set<string>()
  return (fields) => {
    if (seen.has(fields.field)) return
    seen.add(fields.field)
    logger.warn(
      { venue, ...fields },
      `${venue} order book malformed; skipped (and every later book malformed at this field, without a line)`,
    )
  }
}
