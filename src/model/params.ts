// The fitted parameter set of model v2: one JSON file per version, written by `npm run fit:model`,
// checked here at the boundary so a hand-edited or truncated file fails at start, not in a reading.
import type { CrowdMap } from './index-read.ts'
import type { JumpPricing } from './jumps.ts'
import { levelHoursProblem } from './level-hours.ts'
import { type LevelTail, levelTailProblem } from './level-tail.ts'

/** Minute-of-hour groups of the seasonal table (bitcoin's volatility bursts at the quarter hours). */
export const MINUTE_GROUPS = ['hour', 'quarter', 'five', 'other'] as const
export type MinuteGroup = (typeof MINUTE_GROUPS)[number]

export type ModelV2Params = {
  /** names the model; the version published is `${model}.${id}` with id a digest of the parameters */
  model: string
  /** per-minute sd of the log proxy, deseasonalised (the level the seasonal factors multiply) */
  sigmaBar: number
  seasonal: {
    /** sd multiplier per UTC hour 0..23 */
    hour: number[]
    /** sd multiplier per minute-of-hour group: :00, :15/:30/:45, other multiples of 5, the rest */
    minute: Record<MinuteGroup, number>
    /** sd multiplier on Saturday and Sunday (UTC) */
    weekend: number
  }
  variance: {
    /** half-lives in minutes of the fast and slow EWMAs of deseasonalised squared returns */
    fastHalfLifeMin: number
    slowHalfLifeMin: number
    /** weights of fast, slow; the rest goes to the long-run level 1 */
    fastWeight: number
    slowWeight: number
    /** squared returns are clipped at (winsorSd)² × the slow level */
    winsorSd: number
    /**
     * E[ln(high/low)²] / E[r²] over one-minute returns whose minute has a range (price-history.ts),
     * fitted on the training closes: a minute with a range counts its squared range over this in
     * place of its squared return. Set in `ranged` only: the main dynamics read returns.
     */
    rangeScale?: number
    /**
     * Where the closes carry their minutes' seconds: the level follows a realised-GARCH filter on them
     * (realized-level.ts), fastHalfLifeMin the half-life of its memory of the measured variances and
     * fastWeight the filter's share. Set in `ranged` only, where the training closes had seconds.
     */
    realized?: RealizedDynamics
    /** a final multiplier on the forecast variance, fitted on outcomes (estimation error inflates it) */
    scale: number
  }
  /** degrees of freedom of the unit-variance Student t */
  nu: number
  /**
   * The level's dynamics and the tails where the feed saw the last hour's minutes whole (dynamics.ts):
   * a range measures a minute's volatility far better than its return, so the level follows them
   * faster and the forecast needs less room for its own error. Fitted on the training closes' ranges;
   * `variance` and `nu` stay fitted on returns alone, for a feed without ranges (one-minute history,
   * a candle warm-up). Absent (no ranges in the training closes): returns everywhere.
   */
  ranged?: {
    variance: ModelV2Params['variance'] & { rangeScale: number }
    nu: number
    /**
     * Jumps priced on top of the t (jumps.ts), measured on the training closes' seconds: the ranged
     * level takes them out of the variance it measures. Absent: the t alone.
     */
    jumps?: JumpPricing
  }
  basis: {
    /** past strikes whose basis samples are averaged */
    samples: number
    /** pseudo-samples of zero basis added to the average (shrinkage) */
    shrink: number
    /** variance of the basis (relative, squared log units) added to the settlement variance */
    variance: number
  }
  /**
   * Pooling with the venue's mid in log-odds, by minutes left: logit p = intercept + model·logit(the
   * model's p) + mid·logit(the mid), fitted on training readings (so the crowd's known biases, its
   * long-shot shading and YES optimism, are undone rather than copied). A reading without a two-sided
   * book, or in no bucket, keeps the model's own p. Empty: the model alone.
   */
  pool: PoolBucket[]
  /**
   * How much of the pool a book earns by its state (book-pool.ts): the mid's weight falls with the
   * book's spread and its age. Fitted on training readings by log loss; each power is at least 1, so
   * a book spanning 0–100 ¢ or quoted long ago always leaves the model alone.
   */
  book: BookWeighting
  /**
   * A venue's own pooling where its crowd was fitted apart (Polymarket's sandbox or tapes): its
   * buckets replace `pool` on that venue's readings. Absent: `pool` everywhere.
   */
  venuePools?: { polymarket?: VenuePool }
  /**
   * The pool (and book weighting) for readings priced from the closes' returns alone (dynamics.ts:
   * one-minute history, where no minute has a range), fitted on such readings of a real venue
   * (`fit:model --minute-tapes`): a minute close says far less than a live feed, and a real book far
   * more than a sandbox crowd's, so the mid earns more there. Replaces `pool` and `book` on those
   * readings of the default venue; absent: `pool` everywhere.
   */
  returnsOnlyPool?: FittedPool
  /**
   * The crowd's map from P(up) to its book, one per minutes left, for reading the index from the
   * book before the main pool (index-read.ts): fitted on the training readings' mids and the model's
   * own prices, never on the index. Absent: the book is pooled, not read for the index.
   */
  bookRead?: CrowdMap[]
  /**
   * The book is read as the crowd's price at the spot it was measured to quote from (crowd-lag.ts):
   * each index hypothesis is priced there for what the book says of it, and at the reading's own spot
   * for what it moves, as the maps were fitted. Absent, false: at the reading's spot.
   */
  bookReadAtLag?: boolean
  /** what the fit saw: part of the version's digest, so two fits on different data never share a name */
  training: Training
}

/**
 * The provenance of a parameter set: the sandbox seeds and days, or the tapes (recorded live or
 * imported) and the period of their contests, with the readings the fit used. No stage is fitted on
 * anything else (decisions §15: nothing needs a hidden truth).
 */
export type Training =
  | {
      source: 'sandbox'
      seeds: number[]
      /** each seed's crowd preset (SIM_PARAMS), in the seeds' order; absent: the default crowd */
      crowds?: string[]
      days: number
      from: string
      readings: number
    }
  | {
      source: 'tapes'
      /** the tape files' names, in the order read */
      tapes: string[]
      /** the first tape's header origin */
      origin: string
      /** RFC 3339: contests expiring in [from, until] */
      from: string
      until: string
      contests: number
      readings: number
    }

/**
 * How much a book counts (book-pool.ts): its width and age as powers of what is left, and how the
 * mid's pull fades as the model nears certainty, (4·p(1 − p))^certaintyPower — absent, 0: it does not.
 * `lagShift`: the book is first moved by the model's own move since the spot its crowd was measured
 * to quote (crowd-lag.ts, book-pool.ts `lagShiftedBook`); absent, false: the book is read as quoted.
 */
export type BookWeighting = {
  spreadPower: number
  agePower: number
  certaintyPower?: number
  lagShift?: boolean
}

/**
 * The realised-GARCH filter's constants (realized-level.ts), all measured or fitted on the training
 * closes: what a source's own noise adds to a minute's squared moves (twice their cross sums, so it
 * is measured, not assumed), the ratio of the cleaned seconds' variance to the squared return, a
 * jump's threshold in sds of the other moves, the squared return's weight α and the persistence φ.
 */
export type RealizedDynamics = {
  noiseFloor: number
  secondsScale: number
  jumpSd: number
  alpha: number
  persistence: number
}

/** A pool fitted apart, with its book weighting and what it was fitted on. */
export type FittedPool = { pool: PoolBucket[]; book: BookWeighting; training: Training }

/**
 * A venue's own pool, its provenance beside it, and (Polymarket) the measured error of the engine's
 * own estimate of a strike not yet published: relative, squared log units.
 */
export type VenuePool = FittedPool & {
  /** the variance the engine's strike estimate adds, measured at window edges; absent: the engine's default */
  strikeEstimateVariance?: number
  /**
   * the variance of the basis estimate against this venue's settlement price (its own index: on
   * Polymarket the oracle's), measured at its settlements; absent: the main fit's `basis.variance`
   */
  basisVariance?: number
  /**
   * the weight of the k-th newest strike in this venue's basis estimate is basisDecay^k, fitted on
   * its settlements (the decay whose estimate erred least); absent: 1, the main fit's plain mean
   */
  basisDecay?: number
  /** the shape of the strike estimate's error, measured with its variance (level-tail.ts); absent: a normal */
  strikeTail?: LevelTail
  /** the shape of the basis estimate's error, measured with its variance (level-tail.ts); absent: a normal */
  basisTail?: LevelTail
  /**
   * strikeEstimateVariance for a window opening in each UTC hour (24), measured and shrunk toward
   * it (level-hours.ts); absent: strikeEstimateVariance at every hour
   */
  strikeEstimateVarianceByHour?: number[]
  /** basisVariance for a window opening in each UTC hour (24), likewise; absent: basisVariance at every hour */
  basisVarianceByHour?: number[]
}

export type PoolBucket = {
  /** whole minutes left at the reading (1 in the last minute), both bounds inclusive */
  fromMinutesLeft: number
  toMinutesLeft: number
  intercept: number
  model: number
  mid: number
}

function checkVariance(
  v: ModelV2Params['variance'] | undefined,
  name: string,
  fail: (what: string) => never,
) {
  const positive = (x: unknown, what: string): void => {
    if (typeof x !== 'number' || !(x > 0) || !Number.isFinite(x))
      fail(`${name}.${what} must be a positive number`)
  }
  const share = (x: unknown, what: string): void => {
    if (typeof x !== 'number' || !(x >= 0 && x <= 1)) fail(`${name}.${what} must be within [0, 1]`)
  }
  if (typeof v !== 'object' || v === null) return fail(`${name} must be an object`)
  positive(v.fastHalfLifeMin, 'fastHalfLifeMin')
  positive(v.slowHalfLifeMin, 'slowHalfLifeMin')
  share(v.fastWeight, 'fastWeight')
  share(v.slowWeight, 'slowWeight')
  if (v.fastWeight + v.slowWeight > 1) fail(`${name} weights must sum to at most 1`)
  positive(v.winsorSd, 'winsorSd')
  positive(v.scale, 'scale')
  const r = v.realized
  if (r !== undefined) {
    if (typeof r !== 'object' || r === null) fail(`${name}.realized must be an object`)
    if (!(typeof r.noiseFloor === 'number' && r.noiseFloor >= 0))
      fail(`${name}.realized.noiseFloor must be ≥ 0`)
    positive(r.secondsScale, 'realized.secondsScale')
    positive(r.jumpSd, 'realized.jumpSd')
    share(r.persistence, 'realized.persistence')
    if (!(typeof r.alpha === 'number' && r.alpha >= 0 && r.alpha <= r.persistence))
      fail(`${name}.realized.alpha must be within [0, persistence]`)
  }
}

export function checkModelV2Params(value: unknown): ModelV2Params {
  const fail = (what: string): never => {
    throw new TypeError(`model parameters: ${what}`)
  }
  if (typeof value !== 'object' || value === null) return fail('not an object')
  const p = value as ModelV2Params
  const positive = (x: unknown, name: string): void => {
    if (typeof x !== 'number' || !(x > 0) || !Number.isFinite(x)) fail(`${name} must be a positive number`)
  }
  if (typeof p.model !== 'string' || !/^[a-z0-9-]+$/.test(p.model)) fail('model must be a lowercase name')
  positive(p.sigmaBar, 'sigmaBar')
  if (!Array.isArray(p.seasonal?.hour) || p.seasonal.hour.length !== 24)
    fail('seasonal.hour must have 24 values')
  for (const [i, h] of p.seasonal.hour.entries()) positive(h, `seasonal.hour[${i}]`)
  for (const g of MINUTE_GROUPS) positive(p.seasonal.minute?.[g], `seasonal.minute.${g}`)
  positive(p.seasonal.weekend, 'seasonal.weekend')
  checkVariance(p.variance, 'variance', fail)
  if (p.variance.rangeScale !== undefined) fail('variance.rangeScale belongs in ranged.variance')
  if (p.variance.realized !== undefined) fail('variance.realized belongs in ranged.variance')
  if (typeof p.nu !== 'number' || !(p.nu > 2)) fail('nu must be above 2')
  if (p.ranged !== undefined) {
    checkVariance(p.ranged?.variance, 'ranged.variance', fail)
    positive(p.ranged.variance.rangeScale, 'ranged.variance.rangeScale')
    if (typeof p.ranged.nu !== 'number' || !(p.ranged.nu > 2)) fail('ranged.nu must be above 2')
    const jumps = p.ranged.jumps
    if (jumps !== undefined) {
      if (typeof jumps !== 'object' || jumps === null) fail('ranged.jumps must be an object')
      if (
        !(
          typeof jumps.perVariance === 'number' &&
          jumps.perVariance >= 0 &&
          Number.isFinite(jumps.perVariance)
        )
      )
        fail('ranged.jumps.perVariance must be a number of at least 0')
      positive(jumps.laplaceScale, 'ranged.jumps.laplaceScale')
    }
  }
  if (!Number.isInteger(p.basis?.samples) || p.basis.samples < 0) fail('basis.samples must be a whole number')
  if (typeof p.basis.shrink !== 'number' || !(p.basis.shrink >= 0)) fail('basis.shrink must be ≥ 0')
  if (typeof p.basis.variance !== 'number' || !(p.basis.variance >= 0)) fail('basis.variance must be ≥ 0')
  if (!Array.isArray(p.pool)) fail('pool must be a list')
  checkPool(p.pool, 'pool', fail)
  checkBookWeighting(p.book, 'book', fail)
  const poly = p.venuePools?.polymarket
  if (p.venuePools !== undefined && (typeof p.venuePools !== 'object' || p.venuePools === null))
    fail('venuePools must be an object')
  if (poly !== undefined) {
    if (!Array.isArray(poly.pool)) fail('venuePools.polymarket.pool must be a list')
    checkPool(poly.pool, 'venuePools.polymarket.pool', fail)
    checkBookWeighting(poly.book, 'venuePools.polymarket.book', fail)
    for (const key of ['strikeEstimateVariance', 'basisVariance'] as const) {
      const x = poly[key]
      if (x !== undefined && !(typeof x === 'number' && x >= 0))
        fail(`venuePools.polymarket.${key} must be ≥ 0`)
    }
    const decay = poly.basisDecay
    if (decay !== undefined && !(typeof decay === 'number' && decay >= 0 && decay <= 1))
      fail('venuePools.polymarket.basisDecay must be between 0 and 1')
    for (const key of ['strikeTail', 'basisTail'] as const) {
      const problem = poly[key] === undefined ? null : levelTailProblem(poly[key])
      if (problem !== null) fail(`venuePools.polymarket.${key}: ${problem}`)
    }
    for (const [key, pooled] of [
      ['strikeEstimateVarianceByHour', 'strikeEstimateVariance'],
      ['basisVarianceByHour', 'basisVariance'],
    ] as const) {
      if (poly[key] === undefined) continue
      const problem = levelHoursProblem(poly[key])
      if (problem !== null) fail(`venuePools.polymarket.${key}: ${problem}`)
      // an hour's variance is its pooled one's refinement: without the pooled one the model has no
      // measured error to choose the strike by
      if (poly[pooled] === undefined) fail(`venuePools.polymarket.${key} needs ${pooled}`)
    }
    checkTraining(poly.training, fail)
  }
  const minute = p.returnsOnlyPool
  if (minute !== undefined) {
    if (typeof minute !== 'object' || minute === null || !Array.isArray(minute.pool))
      fail('returnsOnlyPool.pool must be a list')
    checkPool(minute.pool, 'returnsOnlyPool.pool', fail)
    checkBookWeighting(minute.book, 'returnsOnlyPool.book', fail)
    checkTraining(minute.training, fail)
  }
  if (p.bookRead !== undefined) checkCrowdMaps(p.bookRead, fail)
  if (p.bookReadAtLag !== undefined && typeof p.bookReadAtLag !== 'boolean')
    fail('bookReadAtLag must be true or false')
  checkTraining(p.training, fail)
  return p
}

function checkCrowdMaps(maps: unknown, fail: (what: string) => never): void {
  if (!Array.isArray(maps)) fail('bookRead must be a list')
  const seen = new Set<number>()
  for (const [i, m] of (maps as CrowdMap[]).entries()) {
    const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x)
    if (
      !Number.isInteger(m?.minutesLeft) ||
      m.minutesLeft < 1 ||
      seen.has(m.minutesLeft) ||
      !finite(m.intercept) ||
      !finite(m.slope) ||
      !(finite(m.noise) && m.noise > 0)
    )
      fail(
        `bookRead[${i}] must have its own whole minutesLeft ≥ 1, a finite intercept and slope, and noise > 0`,
      )
    seen.add(m.minutesLeft)
  }
}

function checkTraining(training: unknown, fail: (what: string) => never): void {
  const t = training as Partial<Record<string, unknown>> | undefined
  const wholeCount = (x: unknown) => Number.isInteger(x) && (x as number) >= 0
  if (t?.source === 'sandbox') {
    if (
      !Array.isArray(t.seeds) ||
      !wholeCount(t.days) ||
      typeof t.from !== 'string' ||
      !wholeCount(t.readings) ||
      (t.crowds !== undefined &&
        (!Array.isArray(t.crowds) ||
          t.crowds.length !== t.seeds.length ||
          !t.crowds.every((c) => typeof c === 'string')))
    )
      fail('training (sandbox) must name its seeds, days, from and readings (and a crowd per seed, if any)')
  } else if (t?.source === 'tapes') {
    if (
      !Array.isArray(t.tapes) ||
      typeof t.origin !== 'string' ||
      typeof t.from !== 'string' ||
      typeof t.until !== 'string' ||
      !wholeCount(t.contests) ||
      !wholeCount(t.readings)
    )
      fail('training (tapes) must name its tapes, origin, from, until, contests and readings')
  } else fail('training.source must be "sandbox" or "tapes"')
}

function checkPool(pool: PoolBucket[], name: string, fail: (what: string) => never): void {
  for (const [i, b] of pool.entries()) {
    const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x)
    if (
      !Number.isInteger(b?.fromMinutesLeft) ||
      !Number.isInteger(b.toMinutesLeft) ||
      b.fromMinutesLeft > b.toMinutesLeft ||
      !finite(b.intercept) ||
      !finite(b.model) ||
      !finite(b.mid)
    )
      fail(`${name}[${i}] must have whole minutes from ≤ to and finite coefficients`)
  }
}

function checkBookWeighting(w: BookWeighting | undefined, name: string, fail: (what: string) => never): void {
  const power = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 1
  if (!power(w?.spreadPower) || !power(w?.agePower))
    fail(`${name} must have spreadPower and agePower of at least 1`)
  const certainty = w?.certaintyPower
  if (
    certainty !== undefined &&
    !(typeof certainty === 'number' && Number.isFinite(certainty) && certainty >= 0)
  )
    fail(`${name}.certaintyPower must be a number of at least 0`)
  if (w?.lagShift !== undefined && typeof w.lagShift !== 'boolean')
    fail(`${name}.lagShift must be true or false`)
}

/**
 * A short digest of the parameters and their provenance (FNV-1a over their canonical JSON), so a
 * version names exactly one parameter set fitted on one body of data: a refit that changes a number,
 * or the same numbers fitted on other tapes or seeds, changes the version.
 */
export function paramsId(p: ModelV2Params): string {
  const text = JSON.stringify(p, Object.keys(flatten(p)).sort())
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return (h >>> 0).toString(16).padStart(8, '0')
}

/** Every key at every depth, lists' elements included: JSON.stringify's key list drops any key not in it. */
function flatten(v: unknown, into: Record<string, true> = {}): Record<string, true> {
  if (Array.isArray(v)) for (const item of v) flatten(item, into)
  else if (typeof v === 'object' && v !== null)
    for (const [k, item] of Object.entries(v)) {
      into[k] = true
      flatten(item, into)
    }
  return into
}

export function modelV2Version(p: ModelV2Params): string {
  return `${p.model}.${paramsId(p)}`
}
