// A venue's quote as a test compares it: the asks, without the instant the book came back (the
// venue stamps each quote with its own clock; tests that care read `observedAt` themselves).
import { NO_ANSWER, type QuoteAnswer } from '../../src/ports/venue.ts'

export function asksOf(
  quote: QuoteAnswer,
): { upAskCents: number | null; downAskCents: number | null } | null | typeof NO_ANSWER {
  if (quote === null || quote === NO_ANSWER) return quote
  return { upAskCents: quote.upAskCents, downAskCents: quote.downAskCents }
}
