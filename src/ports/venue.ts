// What the engine needs from a prediction-market venue and a spot price feed. Raw venue data is
// translated to these domain shapes inside each adapter.
import type { Settlement } from '../domain/contest.ts'

export type VenueMarket = {
  ticker: string
  series: string
  opensAt: number
  expiresAt: number
  strikePriceDollars: number | null
}

/** Best asks on the 0–100 cent scale for each side. */
export type VenueQuote = { upAskCents: number; downAskCents: number }

export interface Venue {
  readonly name: string
  /** The market of `series` whose window contains `at`, if the venue lists one. */
  marketAt(series: string, at: number): Promise<VenueMarket | null>
  /** Best asks for the market at `at`, or null when the venue has no two-sided quote. */
  quote(ticker: string, at: number): Promise<VenueQuote | null>
  /** The result once the venue has determined it (as seen at `at`), else null. */
  result(ticker: string, at: number): Promise<Settlement | null>
  /** True when the venue can answer the calls above for past instants (used by backfill). */
  readonly supportsHistory: boolean
}

export interface PriceFeed {
  readonly name: string
  /** Spot price of the underlying in USD at `at`. */
  spotAt(at: number): Promise<number>
  /** Closing prices of the `count` whole minutes ending at or before `at`, oldest first. */
  minuteClosesBefore(at: number, count: number): Promise<number[]>
}
