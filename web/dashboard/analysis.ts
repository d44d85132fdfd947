// The dashboard's numbers, computed by the same domain module as `contest-signals backtest`: the API's
// JSON turned into the backtest's input, the report and the threshold grid turned into what the page shows.

import type { CalibrationPoint } from './calibration-chart.ts'
import {
  type BacktestContest,
  type BacktestFilter,
  DEFAULT_GRID,
  runBacktest,
  thresholdGrid,
} from './domain/backtest.ts'
import type { ContestJson } from './types.ts'

export type Filter = {
  minConfidence: number
  minEdge: number
  side: 'up' | 'down' | null
  /** profits net of each signal's venue taker fee (one one-contract order per signal) */
  afterFee: boolean
}

export type GridView = {
  edges: string[]
  rows: {
    minConfidence: string
    cells: { count: number; winRate: number | null; profitPerContractCents: number | null }[]
  }[]
}

export type Analysis = {
  signals: number
  wins: number
  losses: number
  voids: number
  winRate: number | null
  winRateLow: number | null
  winRateHigh: number | null
  avgEntryCents: number | null
  /** the edge the graded signals claimed (voids claim nothing tested) */
  avgEdgeCents: number | null
  /** the edge the same graded signals realised, beside the claimed avgEdgeCents */
  realisedEdgeCents: number | null
  /** before or after the fee, as the filter asks */
  profitPerContractCents: number | null
  profitLowCents: number | null
  profitHighCents: number | null
  afterFee: boolean
  brier: number | null
  calibration: CalibrationPoint[]
  grid: GridView
}

/** The API's contest JSON as the backtest reads it (the series is the one the page asked for). */
export function toBacktestContests(series: string, contests: readonly ContestJson[]): BacktestContest[] {
  return contests.map((c) => ({
    series,
    state: c.state,
    expiresAt: Date.parse(c.window.expires_at),
    signals: c.signals.map((s) => ({
      ticker: s.ticker,
      side: s.side,
      confidence: s.confidence,
      entryPriceCents: s.entry_price_cents,
      edgeCents: s.edge_cents,
      outcome: s.outcome,
    })),
  }))
}

export function analyse(contests: readonly BacktestContest[], filter: Filter): Analysis {
  const f: BacktestFilter = {
    minConfidence: filter.minConfidence,
    minEdge: filter.minEdge,
    ...(filter.side ? { side: filter.side } : {}),
  }
  const report = runBacktest(contests, f)
  const cells = thresholdGrid(contests, f, DEFAULT_GRID)
  const label = (x: number | null) => (x === null ? 'any' : `≥ ${x}`)
  return {
    signals: report.signals,
    wins: report.wins,
    losses: report.losses,
    voids: report.voids,
    winRate: report.winRate,
    winRateLow: report.winRateInterval?.low ?? null,
    winRateHigh: report.winRateInterval?.high ?? null,
    avgEntryCents: report.averageEntryCents,
    avgEdgeCents: report.claimedEdgeCents,
    realisedEdgeCents: report.realisedEdgeCents,
    profitPerContractCents: filter.afterFee
      ? report.profitPerContractAfterFeeCents
      : report.profitPerContractCents,
    profitLowCents: (filter.afterFee ? report.profitAfterFeeInterval : report.profitInterval)?.low ?? null,
    profitHighCents: (filter.afterFee ? report.profitAfterFeeInterval : report.profitInterval)?.high ?? null,
    afterFee: filter.afterFee,
    brier: report.brierScore,
    calibration: report.calibration.map((b) => ({
      label: `${b.from}–${b.to}`,
      mid: (b.from + b.to) / 2,
      count: b.signals,
      wins: b.wins,
      winRate: b.winRate,
      low: b.winRateInterval?.low ?? null,
      high: b.winRateInterval?.high ?? null,
    })),
    grid: {
      edges: DEFAULT_GRID.edges.map((e) => (e === null ? 'any edge' : `edge ≥ ${e}¢`)),
      rows: DEFAULT_GRID.confidences.map((minConfidence) => ({
        minConfidence: label(minConfidence),
        cells: cells
          .filter((c) => c.minConfidence === minConfidence)
          .map((c) => ({
            count: c.signals,
            winRate: c.winRate,
            profitPerContractCents: filter.afterFee
              ? c.profitPerContractAfterFeeCents
              : c.profitPerContractCents,
          })),
      })),
    },
  }
}
