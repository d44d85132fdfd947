// A replay's warnings about a recorded body name the tape file and line it came from, so an operator
// can open it and mend it. The venue's own market book logs as it does live (slug, field); the
// recorded venue is handed this logger, which adds the place of the record being played.
import type { Logger } from '../../ports/logger.ts'
import type { RecordPlace } from '../../tape/tape-reader.ts'

export type PlacedLogger = {
  logger: Logger
  /**
   * Runs `play` with its log lines naming where its records are: `tape` and `line` for one record,
   * `tape` and `lines` (in the order given) for several, as the books of a quote's sides.
   */
  at<T>(places: readonly (RecordPlace | null)[], play: () => T): T
}

export function placedLogger(base: Logger): PlacedLogger {
  let where: Record<string, unknown> | null = null
  const placed =
    (log: Logger['warn']): Logger['warn'] =>
    (obj, msg) =>
      where === null || typeof obj !== 'object' || obj === null
        ? log(obj, msg)
        : log({ ...obj, ...where }, msg)
  return {
    logger: {
      info: placed((obj, msg) => base.info(obj, msg)),
      warn: placed((obj, msg) => base.warn(obj, msg)),
      error: placed((obj, msg) => base.error(obj, msg)),
      debug: placed((obj, msg) => base.debug(obj, msg)),
    },
    at(places, play) {
      const known = places.filter((p) => p !== null)
      const before = where
      where =
        known.length === 0
          ? null
          : known.length === 1
            ? { tape: known[0]!.tape, line: known[0]!.line }
            : { tape: known[0]!.tape, lines: known.map((p) => p.line) }
      try {
        return play()
      } finally {
        where = before
      }
    },
  }
}
