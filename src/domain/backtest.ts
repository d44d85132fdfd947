// The threshold backtest over graded history: which confidence and edge thresholds would have paid, and
// is the model calibrated? Pure arithmetic on settled contests — no I/O, no Node APIs — so the CLI
// (`contest-signals backtest`) and a browser dashboard compute the very same numbers.
//
// Conventions (written down in docs/design-decisions.md §10):
// - one contract is bought per signal at its entry price: a win pays 100 − entry cents, a loss costs
//   entry cents, a void is refunded (0, its fee too); after the fee, each buy is one order paying
//   its venue's taker fee (src/domain/taker-fee.ts: Kalshi's, or Polymarket's for btc-updown-*);
// - win rate, its interval, the Brier score and the calibration table count graded signals only
//   (wins and losses); voids count in the signals, the average entry and the profit per contract;
// - intervals are clustered by contest (decisions §13): the signals of one contest share its outcome,
//   so they count as fewer independent trials than there are signals;
// - the time window applies to a contest's expiresAt, both bounds inclusive, as in the history API.
import type { Contest, Side, Signal } from './contest.ts'
import { feeScheduleOf, takerFeeCentsOn } from './taker-fee.ts'

/** The parts of a signal the backtest reads: a domain Signal qualifies. */
export type BacktestSignal = Pick<
  Signal,
  'ticker' | 'side' | 'confidence' | 'entryPriceCents' | 'edgeCents' | 'outcome'
>

/** The parts of a contest the backtest reads: a domain Contest qualifies. */
export type BacktestContest = Pick<Contest, 'series' | 'state' | 'expiresAt'> & {
  signals: readonly BacktestSignal[]
}

export type BacktestFilter = {
  /** exact series match; every series when absent */
  series?: string
  /** inclusive lower bound on expiresAt, epoch ms */
  since?: number
  /** inclusive upper bound on expiresAt, epoch ms */
  before?: number
  /** keep signals with confidence ≥ this (0–100 scale) */
  minConfidence?: number
  /** keep signals with edge_cents ≥ this (may be negative) */
  minEdge?: number
  side?: Side
}

/** A two-sided interval on a proportion, both ends in [0, 1]. */
export type Interval = { low: number; high: number }

export type OutcomeSummary = {
  /** signals passing the filter: wins + losses + voids */
  signals: number
  wins: number
  losses: number
  voids: number
  /** wins / (wins + losses); null with no graded signal */
  winRate: number | null
  /** Wilson score interval at 95 % on winRate, on the effective trials of clustering by contest */
  winRateInterval: Interval | null
  /** mean entry_price_cents over every signal (voids included); null when none */
  averageEntryCents: number | null
  averageEdgeCents: number | null
  averageConfidence: number | null
  /** Σ profit of one contract per signal, in cents, rounded to 2 decimals */
  totalProfitCents: number
  /** totalProfitCents / signals; null when none */
  profitPerContractCents: number | null
  /** 95 % interval on profitPerContractCents, clustered by contest */
  profitInterval: { low: number; high: number } | null
  /** Σ taker fees of one one-contract order per signal (voids refunded), in cents */
  totalFeeCents: number
  /** profit after the fee */
  totalProfitAfterFeeCents: number
  profitPerContractAfterFeeCents: number | null
  profitAfterFeeInterval: { low: number; high: number } | null
  /** the edge the graded signals claimed: mean edge_cents over wins and losses (voids claim nothing tested) */
  claimedEdgeCents: number | null
  /** the edge the same graded signals realised: mean of 100·won − entry */
  realisedEdgeCents: number | null
  /** mean of (confidence/100 − won)² over graded signals; 0 is perfect, 0.25 is a coin's guess */
  brierScore: number | null
}

export type CalibrationBucket = {
  /** confidence bucket [from, to), the last one closed at 100 */
  from: number
  to: number
  /** graded signals (wins + losses) in the bucket; voids are left out */
  signals: number
  wins: number
  /** mean confidence of the bucket's graded signals, on the 0–100 scale: the x of a calibration plot */
  meanConfidence: number | null
  /** realised win rate, 0–1 */
  winRate: number | null
  winRateInterval: Interval | null
}

export type BacktestReport = OutcomeSummary & {
  filter: BacktestFilter
  /** settled contests in the series and time window, with or without a signal passing the filter */
  contests: number
  calibration: CalibrationBucket[]
}

export type GridCell = Pick<
  OutcomeSummary,
  | 'signals'
  | 'wins'
  | 'losses'
  | 'voids'
  | 'winRate'
  | 'winRateInterval'
  | 'totalProfitCents'
  | 'profitPerContractCents'
  | 'profitPerContractAfterFeeCents'
> & { minConfidence: number | null; minEdge: number | null }

export type GridAxes = {
  /** confidence thresholds; null means no threshold */
  confidences: readonly (number | null)[]
  /** edge thresholds; null means no threshold */
  edges: readonly (number | null)[]
}

export const DEFAULT_GRID: GridAxes = {
  confidences: [null, 50, 60, 70, 80, 90],
  edges: [null, 0, 2, 5, 10],
}

/** z for a two-sided 95 % interval */
export const Z95 = 1.959963984540054

/** The settled contests of the filter's series and time window (signal thresholds not applied). */
export function selectContests<C extends BacktestContest>(
  contests: readonly C[],
  filter: BacktestFilter,
): C[] {
  return contests.filter(
    (c) =>
      c.state === 'settled' &&
      (filter.series === undefined || c.series === filter.series) &&
      (filter.since === undefined || c.expiresAt >= filter.since) &&
      (filter.before === undefined || c.expiresAt <= filter.before),
  )
}

/** Whether a graded signal passes the filter's thresholds and side. */
export function passes(signal: BacktestSignal, filter: BacktestFilter): boolean {
  return (
    signal.outcome !== 'pending' &&
    (filter.minConfidence === undefined || signal.confidence >= filter.minConfidence) &&
    (filter.minEdge === undefined || signal.edgeCents >= filter.minEdge) &&
    (filter.side === undefined || signal.side === filter.side)
  )
}

/** The graded signals of the filter's contests that pass its thresholds, in the contests' order. */
export function selectSignals(
  contests: readonly BacktestContest[],
  filter: BacktestFilter,
): BacktestSignal[] {
  return selectContests(contests, filter).flatMap((c) => c.signals.filter((s) => passes(s, filter)))
}

/** Realised profit of one contract bought at the signal's entry price, in cents. */
export function signalProfitCents(signal: BacktestSignal): number {
  if (signal.outcome === 'win') return 100 - signal.entryPriceCents
  if (signal.outcome === 'loss') return -signal.entryPriceCents
  return 0
}

/**
 * One contract's taker fee for a signal, on its venue's schedule (the ticker starts with its series,
 * which names the venue): none on a void, whose buy the venue unwinds.
 */
export function signalFeeCents(signal: BacktestSignal): number {
  return signal.outcome === 'void' ? 0 : takerFeeCentsOn(feeScheduleOf(signal.ticker), signal.entryPriceCents)
}

/**
 * A mean of per-signal values with its 95 % interval clustered by contest: the variance of the mean
 * is C/(C − 1) · Σ_c (Σ_{i∈c} (x_i − x̄))² / N².
 */
export function clusteredMeanInterval(
  values: readonly number[],
  clusters: readonly string[],
  z: number = Z95,
): { mean: number; low: number; high: number } | null {
  const n = values.length
  if (n === 0) return null
  const mean = values.reduce((a, b) => a + b, 0) / n
  const sums = new Map<string, number>()
  for (let i = 0; i < n; i++) sums.set(clusters[i]!, (sums.get(clusters[i]!) ?? 0) + values[i]! - mean)
  if (sums.size < 2) return null
  let ss = 0
  for (const s of sums.values()) ss += s * s
  const se = Math.sqrt(((sums.size / (sums.size - 1)) * ss) / (n * n))
  return { mean, low: mean - z * se, high: mean + z * se }
}

/**
 * A Wilson interval on a proportion of outcomes clustered by contest: the Wilson interval on the
 * effective number of trials p(1 − p)/v, v the clustered variance of the proportion. When that
 * variance is 0 (every outcome alike) or there is one contest only, each contest counts as one
 * trial with its share of successes.
 */
export function clusteredWilsonInterval(
  outcomes: readonly { cluster: string; success: boolean }[],
  z: number = Z95,
): Interval | null {
  const n = outcomes.length
  if (n === 0) return null
  const per = new Map<string, { n: number; w: number }>()
  let wins = 0
  for (const o of outcomes) {
    const c = per.get(o.cluster) ?? { n: 0, w: 0 }
    c.n++
    if (o.success) {
      c.w++
      wins++
    }
    per.set(o.cluster, c)
  }
  const p = wins / n
  const k = per.size
  let ss = 0
  for (const c of per.values()) ss += (c.w - p * c.n) ** 2
  const variance = k > 1 ? ((k / (k - 1)) * ss) / (n * n) : 0
  if (variance > 0) {
    const effective = (p * (1 - p)) / variance
    return wilsonInterval(p * effective, effective, z)
  }
  let shares = 0
  for (const c of per.values()) shares += c.w / c.n
  return wilsonInterval(shares, k, z)
}

/** The Wilson score interval on `successes` out of `trials`; null with no trial. */
export function wilsonInterval(successes: number, trials: number, z: number = Z95): Interval | null {
  if (trials <= 0) return null
  const p = successes / trials
  const z2 = z * z
  const denominator = 1 + z2 / trials
  const centre = (p + z2 / (2 * trials)) / denominator
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) }
}

export function summarize(signals: readonly BacktestSignal[]): OutcomeSummary {
  let wins = 0
  let losses = 0
  let voids = 0
  let entry = 0
  let edge = 0
  let confidence = 0
  let profit = 0
  let fees = 0
  let brier = 0
  let realised = 0
  let claimed = 0
  const profits: number[] = []
  const netProfits: number[] = []
  const clusters: string[] = []
  const graded: { cluster: string; success: boolean }[] = []
  for (const s of signals) {
    entry += s.entryPriceCents
    edge += s.edgeCents
    confidence += s.confidence
    const p = signalProfitCents(s)
    const fee = signalFeeCents(s)
    profit += p
    fees += fee
    profits.push(p)
    netProfits.push(p - fee)
    clusters.push(s.ticker)
    if (s.outcome === 'win' || s.outcome === 'loss') {
      graded.push({ cluster: s.ticker, success: s.outcome === 'win' })
      realised += p
      claimed += s.edgeCents
    }
    if (s.outcome === 'win') wins++
    else if (s.outcome === 'loss') losses++
    else voids++
    if (s.outcome === 'win' || s.outcome === 'loss') {
      const won = s.outcome === 'win' ? 1 : 0
      brier += (s.confidence / 100 - won) ** 2
    }
  }
  const n = signals.length
  const gradedCount = wins + losses
  const totalProfitCents = roundTo(profit, 2)
  const totalProfitAfterFeeCents = roundTo(profit - fees, 2)
  const interval = (values: number[]) => {
    const i = clusteredMeanInterval(values, clusters)
    return i ? { low: i.low, high: i.high } : null
  }
  return {
    signals: n,
    wins,
    losses,
    voids,
    winRate: gradedCount === 0 ? null : wins / gradedCount,
    winRateInterval: clusteredWilsonInterval(graded),
    averageEntryCents: n === 0 ? null : entry / n,
    averageEdgeCents: n === 0 ? null : edge / n,
    averageConfidence: n === 0 ? null : confidence / n,
    totalProfitCents,
    profitPerContractCents: n === 0 ? null : totalProfitCents / n,
    profitInterval: interval(profits),
    totalFeeCents: roundTo(fees, 3),
    totalProfitAfterFeeCents,
    profitPerContractAfterFeeCents: n === 0 ? null : totalProfitAfterFeeCents / n,
    profitAfterFeeInterval: interval(netProfits),
    claimedEdgeCents: gradedCount === 0 ? null : claimed / gradedCount,
    realisedEdgeCents: gradedCount === 0 ? null : realised / gradedCount,
    brierScore: gradedCount === 0 ? null : brier / gradedCount,
  }
}

/** Graded signals by confidence bucket of `width` points: [0, w), [w, 2w), … the last closed at 100. */
export function calibrationTable(signals: readonly BacktestSignal[], width = 10): CalibrationBucket[] {
  const count = Math.ceil(100 / width)
  const buckets = Array.from({ length: count }, (_, i) => ({
    n: 0,
    wins: 0,
    confidence: 0,
    from: i * width,
    outcomes: [] as { cluster: string; success: boolean }[],
  }))
  for (const s of signals) {
    if (s.outcome !== 'win' && s.outcome !== 'loss') continue
    const index = Math.min(count - 1, Math.max(0, Math.floor(s.confidence / width)))
    const b = buckets[index]!
    b.n++
    b.confidence += s.confidence
    if (s.outcome === 'win') b.wins++
    b.outcomes.push({ cluster: s.ticker, success: s.outcome === 'win' })
  }
  return buckets.map((b) => ({
    from: b.from,
    to: Math.min(100, b.from + width),
    signals: b.n,
    wins: b.wins,
    meanConfidence: b.n === 0 ? null : b.confidence / b.n,
    winRate: b.n === 0 ? null : b.wins / b.n,
    winRateInterval: clusteredWilsonInterval(b.outcomes),
  }))
}

/** The whole report for one filter: the summary, the calibration table and the contests considered. */
export function runBacktest(
  contests: readonly BacktestContest[],
  filter: BacktestFilter,
  bucketWidth = 10,
): BacktestReport {
  const inWindow = selectContests(contests, filter)
  const signals = inWindow.flatMap((c) => c.signals.filter((s) => passes(s, filter)))
  return {
    filter,
    contests: inWindow.length,
    ...summarize(signals),
    calibration: calibrationTable(signals, bucketWidth),
  }
}

/**
 * Win rate and profit for every (confidence, edge) threshold pair, confidences outer, edges inner.
 * The filter's own minConfidence and minEdge are replaced by each cell's thresholds; its series,
 * window and side still apply.
 */
export function thresholdGrid(
  contests: readonly BacktestContest[],
  filter: BacktestFilter,
  axes: GridAxes = DEFAULT_GRID,
): GridCell[] {
  const { minConfidence: _c, minEdge: _e, ...base } = filter
  const candidates = selectSignals(contests, base)
  const cells: GridCell[] = []
  for (const minConfidence of axes.confidences) {
    for (const minEdge of axes.edges) {
      const s = summarize(
        candidates.filter(
          (x) =>
            (minConfidence === null || x.confidence >= minConfidence) &&
            (minEdge === null || x.edgeCents >= minEdge),
        ),
      )
      cells.push({
        minConfidence,
        minEdge,
        signals: s.signals,
        wins: s.wins,
        losses: s.losses,
        voids: s.voids,
        winRate: s.winRate,
        winRateInterval: s.winRateInterval,
        totalProfitCents: s.totalProfitCents,
        profitPerContractCents: s.profitPerContractCents,
        profitPerContractAfterFeeCents: s.profitPerContractAfterFeeCents,
      })
    }
  }
  return cells
}

function roundTo(x: number, decimals: number): number {
  const f = 10 ** decimals
  return Math.round(x * f) / f
}
