// PLACEHOLDER until the backtest module lands
import type { CalibrationPoint } from './calibration-chart.ts'
import type { ContestJson } from './types.ts'
export type Filter = { minConfidence: number; minEdge: number; side: 'up' | 'down' | null }
export type Analysis = {
  signals: number
  wins: number
  losses: number
  voids: number
  winRate: number | null
  winRateLow: number | null
  winRateHigh: number | null
  avgEntryCents: number | null
  avgEdgeCents: number | null
  profitPerContractCents: number | null
  brier: number | null
  calibration: CalibrationPoint[]
  grid: {
    edges: number[]
    rows: {
      minConfidence: number
      cells: { count: number; winRate: number | null; profitPerContractCents: number | null }[]
    }[]
  }
}
export function analyse(_contests: readonly ContestJson[], _filter: Filter): Analysis {
  throw new Error('todo')
}
