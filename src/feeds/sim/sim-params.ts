// Every number the honest sandbox is drawn with (decisions §3; what each part does is in this
// folder's README), in one object so a test or a study can sweep any of them. Values marked
// "assumed" have no published estimate behind them; the rest follow published estimates of
// bitcoin's intraday volatility and of Kalshi's pricing biases.

/** The venue's crowd (crowd.ts); SIM_PARAMS.crowd. */
const CROWD = {
  /**
   * How the crowd knows the volatility: `ewma` estimates it from the index's past minute returns it
   * has seen (de-seasonalised, half-life `ewmaHalfLifeMinutes`), as a person would; `true` is the
   * level itself (the hidden state) times the lognormal errors below — an oracle with noise.
   */
  volEstimator: 'ewma' as 'ewma' | 'true',
  ewmaHalfLifeMinutes: 60,
  /** lognormal error of the crowd's volatility guess: per contest and per minute (assumed) */
  volErrorContestSd: 0.05,
  volErrorMinuteSd: 0.03,
  /** the crowd prices from the index print this many seconds old (assumed) */
  lagSeconds: 2,
  /**
   * The form of its bias: `logit` (logit q = γ·logit q* + δ: long shots dear, favourites cheap,
   * YES optimism), `shrink` (q = (1 − s)·q* + s/2: toward even odds in probability), `floor`
   * (q* kept inside [f, 1 − f]: nothing priced under a floor) or `drift` (the logit form with γ
   * moving from `gamma` at the open to `gammaLate` at the close: time-varying over the contest).
   */
  bias: 'logit' as 'logit' | 'shrink' | 'floor' | 'drift',
  gamma: 0.92,
  delta: 0.04,
  shrink: 0.1,
  floor: 0.02,
  gammaLate: 0.8,
  /** logit noise per contest and per minute (assumed) */
  noiseContestSd: 0.05,
  noiseMinuteSd: 0.05,
  /** chance that a minute's book opens with the previous minute's book, and for how long (assumed) */
  staleQuoteRate: 0.03,
  staleQuoteMs: 15_000,
  /** spread in ticks of the grid at the mid: 1–3 ¢ between 10 and 90 ¢, 0.1–0.3 ¢ outside */
  spreadTicks: [1, 3] as readonly [number, number],
  /**
   * One-sided books near the extremes: with the mid under this (or over 1 − this) nobody bids for
   * the long shot, so the favourite has no ask and the long shot's ask stays (0 turns it off)
   */
  oneSidedBelow: 0.005,
  /** levels per side of the book, and the median and log-sd of the contracts at each (assumed) */
  bookLevels: 4,
  levelSizeMedian: 300,
  levelSizeLogSd: 1,
}

export type CrowdParams = typeof CROWD

export const SIM_PARAMS = {
  /** where the path is pinned: 2026-01-01T00:00Z at 90 000 USD */
  anchorMs: Date.UTC(2026, 0, 1),
  anchorPrice: 90_000,

  index: {
    /** per-minute σ̄ of the diffusion: ≈ 44 %/yr, ≈ 50 %/yr with the jumps below */
    sigmaPerMinute: 6.1e-4,
    /** the slow factor: log-volatility AR(1) per minute, half-life in minutes and stationary sd */
    slowHalfLifeMinutes: 2 * 1440,
    slowSd: 0.35,
    /** the fast factor: GARCH(1,1) on standardised minute returns (ω = 1 − α − β, so E[h] = 1) */
    garchAlpha: 0.05,
    garchBeta: 0.93,
    /** unit-variance Student-t innovations */
    studentNu: 5,
    /** Poisson jumps, intensity ∝ current variance (this many a day at σ̄), Laplace sizes */
    jumpsPerDay: 3,
    jumpScale: 0.0025,
    /**
     * The path is generated in epochs of this many days, each from its own start state, bridged to
     * the next epoch's start level; any instant costs at most one epoch of minute steps.
     */
    epochDays: 7,
    /** daily pull of the log price toward the anchor: a half-life of about a year */
    reversionPerDay: 0.002,
  },

  seasonality: {
    /** hour of day: 1 + amplitude · cos(2π(h − peakHourUtc)/24) on the sd */
    hourAmplitude: 0.3,
    peakHourUtc: 15,
    /** sd multipliers in minute :00, in :15/:30/:45, and at the other 5-minute marks (assumed) */
    topOfHour: 1.8,
    quarterHour: 1.4,
    fiveMinuteMark: 1.15,
    /** Saturday and Sunday (UTC) (assumed) */
    weekend: 0.8,
  },

  basis: {
    /** common proxy–index basis: AR(1) per minute in log units (0.5 bp), φ, plus a daily offset (assumed) */
    sd: 0.5e-4,
    phi: 0.5,
    dailyOffsetSd: 0.3e-4,
    /** each source's own daily offset and per-second noise around the common basis (assumed) */
    sourceOffsetSd: 0.2e-4,
    sourceNoiseSd: 0.15e-4,
    /** half the bid–ask spread each exchange shows around its mid, in USD (assumed) */
    halfSpreadDollars: 0.5,
  },

  sources: {
    names: ['coinbase', 'kraken', 'bitstamp'] as readonly string[],
    /** chance per source and hour that it stops sending for a while (its mid freezes) (assumed) */
    stalePerHour: 0.04,
    staleSeconds: [20, 240] as readonly [number, number],
    /** chance per source and hour that it goes off (disconnected, no mid at all) (assumed) */
    offPerHour: 0.02,
    offSeconds: [60, 1200] as readonly [number, number],
    /** a mid older than this is left out of the spot median (as SPOT_MAX_AGE_S does live) */
    maxAgeMs: 10_000,
  },

  crowd: CROWD,

  settlement: {
    /** the venue publishes the result this long after the close */
    delaySeconds: [30, 90] as readonly [number, number],
    /** a voided contest, and a result without its settlement value (decisions §3) */
    voidRate: 1 / 200,
    missingValueRate: 1 / 200,
  },

  /** the weekly trading pause: Thursday 03:00–05:00 America/New_York (venue facts §1.13) */
  pause: { weekdayEastern: 4, fromHour: 3, toHour: 5 },

  /**
   * Polymarket's 15-minute Up/Down (venue facts §3) as the sandbox presents it: the oracle (Chainlink)
   * price is the index times e^basis, the basis a constant per UTC day; the result is Up when the
   * oracle's TWAP over the `twapLookbackSeconds` ending at the close is at least the one ending at the
   * open (a tie is Up); no weekly pause, no voids.
   */
  polymarket: {
    /** sd of the oracle's daily log basis against the index: about $15 at 90 000 USD (assumed) */
    oracleBasisDailySd: 1.7e-4,
    twapLookbackSeconds: 60,
    /** the crowd's grid: 1 ¢ steps between these prices (millionths), 0.1 ¢ outside them */
    fineTickBelow: 40_000,
    fineTickFrom: 960_000,
    /** seconds after the end: the resolution, the price to beat, the final price (venue facts §3.1.3) */
    resolvedAfterSeconds: [60, 120] as readonly [number, number],
    priceToBeatAfterSeconds: [60, 300] as readonly [number, number],
    finalPriceAfterSeconds: [60, 600] as readonly [number, number],
    /** a resolved market that never gets its final price (venue facts §3.3.6) (assumed rate) */
    missingFinalPriceRate: 1 / 200,
    /** the taker fee every market states: shares × rate × p × (1 − p) (venue facts §3.4.6) */
    feeSchedule: { rate: 0.07, exponent: 1, takerOnly: true, rebateRate: 0.2 },
    /** Polymarket's crowd: the Kalshi crowd's settings with these replaced (its own, fitted apart) */
    crowd: {
      lagSeconds: 4,
      ewmaHalfLifeMinutes: 30,
      gamma: 0.95,
      delta: 0.02,
      staleQuoteRate: 0.05,
    } as Partial<CrowdParams>,
  },
}

export type SimParams = typeof SIM_PARAMS

/** A copy of SIM_PARAMS with some groups overridden: `withParams({ crowd: { gamma: 1 } })`. */
export function withParams(overrides: { [G in keyof SimParams]?: Partial<SimParams[G]> }): SimParams {
  const out: Record<string, unknown> = { ...SIM_PARAMS }
  for (const [group, values] of Object.entries(overrides)) {
    const base = SIM_PARAMS[group as keyof SimParams]
    out[group] = typeof base === 'object' ? { ...(base as object), ...(values as object) } : values
  }
  return out as SimParams
}
