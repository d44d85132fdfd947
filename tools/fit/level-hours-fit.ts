// The level error's variance by the UTC hour a window opens in (src/model/level-hours.ts), measured on
// the errors the Polymarket stage already measures — the basis estimate against the settlements, the
// proxy's own strike across a window — each hour's mean shrunk toward the pooled variance by as much
// as its own sampling error stands against the spread of the hours' means (empirical Bayes, so no
// weight is chosen by hand): an hour with few or wild errors keeps nearly the pooled variance, and
// hours that differ only by their sampling error all get it back. Observables only: no hidden truth.
import { HOURS_A_DAY, utcHourOf } from '../../src/model/level-hours.ts'
import type { BasisError } from './stages.ts'

/** An error with the open of the window it was made on. */
export type TimedError = BasisError & { opensAt: number }

/**
 * The variances by hour, the spread of the true hours' variances about the pooled one the shrinking
 * used (its variance, τ²), and the errors each hour had.
 */
export type LevelHours = { byHour: number[]; spread: number; counts: number[] }

/**
 * Each hour's variance — its errors' mean squared error less their measurement noise — shrunk toward
 * `pooled` by τ²/(τ² + s²), s² its mean's sampling variance and τ² the hours' means' spread less the
 * sampling variances' mean. Null where the hours differ by no more than their sampling error (every
 * hour would be the pooled variance) or fewer than two hours have two errors.
 */
export function fitLevelHours(errors: readonly TimedError[], pooled: number): LevelHours | null {
  const hours: number[][] = Array.from({ length: HOURS_A_DAY }, () => [])
  for (const e of errors) hours[utcHourOf(e.opensAt)]?.push(e.squared - e.noise)
  const measured = hours.map((xs) => {
    if (xs.length < 2) return null
    const mean = xs.reduce((a, x) => a + x, 0) / xs.length
    const sampleVariance = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1)
    return { mean, sampling: sampleVariance / xs.length }
  })
  const seen = measured.filter((m) => m !== null)
  if (seen.length < 2) return null
  const spread =
    seen.reduce((a, m) => a + (m.mean - pooled) ** 2, 0) / seen.length -
    seen.reduce((a, m) => a + m.sampling, 0) / seen.length
  if (!(spread > 0)) return null
  const byHour = measured.map((m) => {
    if (m === null) return pooled
    const shrunk = pooled + (spread / (spread + m.sampling)) * (m.mean - pooled)
    return Number(Math.max(0, shrunk).toPrecision(3))
  })
  return { byHour, spread, counts: hours.map((xs) => xs.length) }
}
