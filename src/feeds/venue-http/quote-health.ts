// Whether a venue's quotes are `malformed` (decisions §8: every quote of the last 3 minutes failed to
// parse), shared by the polled venues so the rule has one home. Books are asked only in the first
// seconds of each reading minute, so a run measured from its first failure alone reached 3 minutes
// only at the 4th broken minute (books broken for 3 minutes left health ok): the run's distinct
// minutes count too. It also keeps why the last book request got no usable answer, in the venue's
// words, for `venue check` (decisions §8).

const MINUTE_MS = 60_000

export type QuoteHealth = {
  /** a book came back that could not be read */
  failed(now: number): void
  /** a book came back and was read */
  parsed(): void
  /** the book request got no usable answer: why, as the venue gave it (HTTP status and its words) */
  unanswered(failure: string): void
  /** why the last book request got no usable answer, null once a book was read */
  lastFailure(): string | null
  /** true while the current run of unreadable books says the venue's quotes are malformed */
  malformed(now: number): boolean
}

export function createQuoteHealth(malformedAfterMs: number): QuoteHealth {
  // (at least two: one broken minute is not yet a pattern)
  const brokenMinutesNeeded = Math.max(2, Math.ceil(malformedAfterMs / MINUTE_MS))
  // the start of the current run of unparseable books (null after a good one), and the last failure
  let failingSince: number | null = null
  let lastFailureAt: number | null = null
  const failingMinutes = new Set<number>()
  let unanswered: string | null = null
  const endRun = (): void => {
    failingSince = null
    failingMinutes.clear()
    unanswered = null
  }
  return {
    failed(now) {
      // a failure long after the last one starts a new run: the old one says nothing of now
      if (lastFailureAt !== null && now - lastFailureAt > malformedAfterMs) endRun()
      failingSince ??= now
      lastFailureAt = now
      if (failingMinutes.size < brokenMinutesNeeded) failingMinutes.add(Math.floor(now / MINUTE_MS))
    },
    parsed: endRun,
    unanswered(failure) {
      unanswered = failure
    },
    lastFailure: () => unanswered,
    malformed(now) {
      return (
        failingSince !== null &&
        lastFailureAt !== null &&
        now - lastFailureAt <= malformedAfterMs &&
        (now - failingSince >= malformedAfterMs || failingMinutes.size >= brokenMinutesNeeded)
      )
    },
  }
}
