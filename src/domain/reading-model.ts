// What a pricing model is to the engine (decisions §3, §11): given what the engine observed and when,
// the probability that the contest settles up. Models live in src/model (v2) and domain/model.ts
// (v1); the composition root picks one by name (MODEL), and the engine never knows which.
import type { BasisSample, MinuteClose } from './price-history.ts'
import type { RealVenueName } from './venues.ts'

export type ModelInputs = {
  /** the proxy spot in USD and the instant it was observed */
  spotDollars: number
  spotObservedAt: number
  strikeDollars: number
  opensAt: number
  expiresAt: number
  /** the proxy's minute closes before the observation, oldest first */
  closes: readonly MinuteClose[]
  /** strikes of this and earlier contests beside the proxy's mean over the same minute */
  basisSamples: readonly BasisSample[]
  /** the venue's mid as P(up) when the book is two-sided, else null */
  midProbability: number | null
  /**
   * The venue's book as the reading saw it: both best asks (null: that side has no ask) and its age,
   * the reading's instant minus the instant the book was observed. Absent: only the mid is known.
   */
  book?: BookState
  /**
   * True when the spot is the settlement index itself (BRTI relayed by a keyed Kalshi socket, or its
   * recorded prints on replay), not an exchange proxy: there is no basis to remove and none to doubt.
   */
  spotIsIndex?: boolean
  /** the contest's venue, whose own pooling with its book applies; absent: the default (Kalshi's) */
  venue?: RealVenueName
  /**
   * Set while the venue has not published the strike (Polymarket's price to beat, decisions §14):
   * `strikeDollars` is then the engine's own estimate, the proxy's mean over the rule's window before
   * the open (in the proxy's units, like the spot), and this is its variance in squared log units,
   * added to the variance of the settlement quantity.
   */
  strikeEstimateVariance?: number
  /**
   * The proxy's own mean over the rule's window before the open, whenever the market states its rule
   * and the feed saw that window, published strike or not (the estimate itself while unpublished).
   * In the proxy's units like the spot, so against it the basis cancels.
   */
  ownStrikeDollars?: number
  /**
   * True when that mean is the window's closes' guess (the feed did not see the minute whole), off
   * by a twelfth of the minute's variance more than the minute's own mean.
   */
  strikeEstimateFromCloses?: boolean
  /**
   * Seconds the venue averages its settlement price over, ending at the close, where the market
   * states its rule (0: a point price), whether or not its strike is published; absent: the series'
   * own rule (Kalshi's 60 s mean).
   */
  averagingS?: number
  /**
   * The spot as the feed stood `L` seconds before the book's instant, L = 0..CROWD_LAG_MAX_S, in the
   * spot's units (null: no fresh source then); set where the engine measures the venue's crowd lag.
   */
  spotsBeforeBook?: readonly (number | null)[]
  /**
   * The seconds the venue's crowd was measured to quote behind the spot, from the readings before
   * this one (crowd-lag.ts; 0 until measured): its book says what the spot of that instant said.
   */
  crowdLagSeconds?: number
}

/** The book a reading saw: best asks on the 0–100 cent scale (null: no ask) and its age in ms. */
export type BookState = { upAskCents: number | null; downAskCents: number | null; ageMs: number }

export type ModelOutput = {
  /** P(up), unrounded and unbounded */
  probabilityUp: number
  /**
   * P(up) from the model's own evidence, before any pooling with the venue's mid: stored so
   * `evaluate` can judge the model alone. Absent: the model does not pool, and it is probabilityUp.
   */
  modelAloneUp?: number
  /** per-minute σ the variance was built from */
  sigmaPerMinute: number
  /** the variance priced, in minutes of that σ: the effective time left */
  effectiveMinutes: number
}

export type ReadingModel = {
  /** the published model_version: the model and its parameter set */
  version: string
  /** minutes of closes the model reads */
  historyMinutes: number
  /** fewer usable closes than this within the history: no reading (decisions §11) */
  minHistoryCloses: number
  probabilityUp(input: ModelInputs): ModelOutput
  /**
   * The model's own P(up), before any pooling, had the spot been each of `spots` (null stays null),
   * all else as read: a crowd lag's measure (crowd-lag.ts). A model that reads the lag gives it.
   */
  modelAloneAtSpots?(input: ModelInputs, spots: readonly (number | null)[]): (number | null)[]
  /**
   * Whether it reads the crowd lag on this venue's readings (`crowdLagSeconds`; absent venue: the
   * default's): where it does not, the engine does not measure it, a measure costing sixteen prices
   * a reading. Absent, or without modelAloneAtSpots: it reads none.
   */
  readsCrowdLag?(venue: RealVenueName | undefined): boolean
}
