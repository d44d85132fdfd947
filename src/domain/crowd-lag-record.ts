// A series' crowd-lag readings as the store keeps them (a setting per series), so a restarted or
// newly elected engine goes on with the lag its predecessor measured instead of reading its first
// hours at a lag of 0 (crowd-lag.ts; docs/architecture.md). The readings are kept whole, not their
// sums, so the day's window expires reading by reading after a restart exactly as before it.

import { CROWD_LAG_MAX_S, type CrowdLagReading } from './crowd-lag.ts'

/** The setting that holds `series`' readings. */
export function crowdLagSetting(series: string): string {
  return `crowd-lag:${series}`
}

/** The record's layout: a change to it or to the lags measured makes older records unreadable, not wrong. */
const RECORD_VERSION = 1

/** Each reading as one row, its instant then its distances: [at, d0, d1, …, d15]. */
export function encodeCrowdLag(readings: readonly CrowdLagReading[]): string {
  return JSON.stringify({
    v: RECORD_VERSION,
    maxLagS: CROWD_LAG_MAX_S,
    readings: readings.map((r) => [r.at, ...r.distances]),
  })
}

/** The readings a record holds, oldest first, or what is wrong with it in one line. */
export function decodeCrowdLag(text: string): CrowdLagReading[] | string {
  let record: unknown
  try {
    record = JSON.parse(text)
  } catch {
    return 'not JSON'
  }
  if (typeof record !== 'object' || record === null) return 'not an object'
  const { v, maxLagS, readings } = record as Record<string, unknown>
  if (v !== RECORD_VERSION) return `record version ${String(v)}, not ${RECORD_VERSION}`
  if (maxLagS !== CROWD_LAG_MAX_S) return `lags measured to ${String(maxLagS)} s, not ${CROWD_LAG_MAX_S} s`
  if (!Array.isArray(readings)) return 'no readings'
  const out: CrowdLagReading[] = []
  let last = Number.NEGATIVE_INFINITY
  for (const [i, row] of readings.entries()) {
    if (!Array.isArray(row) || row.length !== CROWD_LAG_MAX_S + 2)
      return `reading ${i} is not [at, ${CROWD_LAG_MAX_S + 1} distances]`
    if (!row.every((x) => typeof x === 'number' && Number.isFinite(x)))
      return `reading ${i} holds a value that is not a finite number`
    const [at, ...distances] = row as number[]
    if (!Number.isInteger(at) || (at as number) < last)
      return `reading ${i}'s instant is not an instant after the one before`
    if (distances.some((d) => d < 0)) return `reading ${i} holds a negative distance`
    last = at as number
    out.push({ at: at as number, distances })
  }
  return out
}
