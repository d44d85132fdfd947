// Stage B, where the training closes carry their minutes' seconds: the realised-GARCH filter's
// constants (src/model/realized-level.ts), each from the closes alone — the noise floor from the
// seconds' own cross sums, the seconds' scale against the squared returns, and the filter's
// dynamics by QLIKE against the measured variance of the next 14 minutes (decisions §15).
import { MINUTE_MS } from '../../src/domain/contest.ts'
import type { MinuteClose } from '../../src/domain/price-history.ts'
import type { ModelV2Params, RealizedDynamics } from '../../src/model/params.ts'
import { cleanSeconds, realizedFilter } from '../../src/model/realized-level.ts'
import { seasonalVariance } from '../../src/model/seasonal.ts'
import { round } from './stages.ts'

/** Fewer seen minutes than a day: no filter, the EWMA level of the ranges. */
const MIN_SEEN_MINUTES = 1440
/**
 * A move is a jump when its square passes this many squared sds of the minute's other moves: a
 * Gaussian minute's largest of 59 passes 5 sd about once in 30,000 minutes, and a jump the sandbox or
 * bitcoin makes is tens of them. Fixed, not fitted: nothing observable says which moves were jumps.
 */
export const JUMP_SD = 5
/** The horizon the dynamics are fitted for: a contest's fourteen minutes after its first reading. */
const HORIZON_MINUTES = 14

type SeenMinute = { close: MinuteClose; move: number }

/** The one-minute returns whose minute's seconds were seen, in [from, until]. */
function seenMinutes(runs: readonly (readonly MinuteClose[])[], from: number, until: number): SeenMinute[] {
  const out: SeenMinute[] = []
  for (const closes of runs)
    for (let i = 1; i < closes.length; i++) {
      const a = closes[i - 1] as MinuteClose
      const b = closes[i] as MinuteClose
      if (b.at - a.at !== MINUTE_MS || b.at <= from || b.at > until || b.seconds === undefined) continue
      if (!(a.priceDollars > 0 && b.priceDollars > 0)) continue
      out.push({ close: b, move: Math.log(b.priceDollars / a.priceDollars) })
    }
  return out
}

/**
 * The filter's measured constants: the noise floor (a source's own per-message noise adds 2η² to
 * each squared move and −η² to each product of neighbours, so the floor is −2 × the mean cross sum),
 * and the seconds' scale (their cleaned variance over the squared return, jumps out of both).
 * Undefined with under a day of seen minutes.
 */
export function measureSeconds(
  runs: readonly (readonly MinuteClose[])[],
  from: number,
  until: number,
): { noiseFloor: number; secondsScale: number; minutes: number } | undefined {
  const seen = seenMinutes(runs, from, until)
  if (seen.length < MIN_SEEN_MINUTES) return undefined
  const crosses = seen.reduce((a, m) => a + (m.close.seconds?.crosses ?? 0), 0) / seen.length
  const noiseFloor = Number(Math.max(0, -2 * crosses).toPrecision(3))
  const unscaled = { noiseFloor, secondsScale: 1, jumpSd: JUMP_SD, alpha: 0, persistence: 0 }
  let variances = 0
  let squares = 0
  for (const m of seen) {
    const clean = cleanSeconds(m.close.seconds as NonNullable<MinuteClose['seconds']>, unscaled)
    variances += clean.variance
    squares += (m.move - clean.jump) ** 2
  }
  if (!(squares > 0 && variances > 0)) return undefined
  return { noiseFloor, secondsScale: Number((variances / squares).toPrecision(4)), minutes: seen.length }
}

/**
 * The filter's dynamics — persistence, α, the gain's half-life, the slow half-life and the blend
 * weights — by QLIKE of its level over the next 14 minutes against their mean measured (cleaned,
 * deseasonalised) variance, at each quarter hour's first minute. The filter runs over each run's
 * closes once per candidate and is read at those instants (the engine's reading starts a day back;
 * the slow half-lives tried leave under a tenth of the weight beyond a day).
 */
export function fitRealizedDynamics(
  runs: readonly (readonly MinuteClose[])[],
  from: number,
  until: number,
  params: ModelV2Params,
  measured: { noiseFloor: number; secondsScale: number },
): { variance: ModelV2Params['variance']; qlike: number; points: number } {
  const base = params.sigmaBar * params.sigmaBar
  const constants = {
    noiseFloor: measured.noiseFloor,
    secondsScale: measured.secondsScale,
    jumpSd: JUMP_SD,
    alpha: 0,
    persistence: 0,
  }
  // the points: per run, the close index read at, and the mean measured variance ahead
  type Point = { run: number; index: number; at: number; realised: number }
  const points: Point[] = []
  runs.forEach((closes, run) => {
    const deseasonalised = closes.map((c, i) => {
      const prev = closes[i - 1]
      if (!prev || c.at - prev.at !== MINUTE_MS || c.seconds === undefined) return null
      return (
        cleanSeconds(c.seconds, constants).variance /
        (base * seasonalVariance(params.seasonal, prev.at, c.at))
      )
    })
    closes.forEach((c, index) => {
      if (c.at % (15 * MINUTE_MS) !== MINUTE_MS || c.at <= from || c.at + HORIZON_MINUTES * MINUTE_MS > until)
        return
      let sum = 0
      let n = 0
      for (
        let j = index + 1;
        j < closes.length && (closes[j] as MinuteClose).at <= c.at + HORIZON_MINUTES * MINUTE_MS;
        j++
      ) {
        const d = deseasonalised[j]
        if (d !== null && d !== undefined) {
          sum += d
          n++
        }
      }
      if (n >= 10) points.push({ run, index, at: c.at, realised: sum / n })
    })
  })
  if (points.length === 0) throw new Error('stage B, seconds: no quarter hour with 14 seen minutes after it')
  let best = { loss: Number.POSITIVE_INFINITY, variance: params.variance }
  for (const persistence of [0.97, 0.98, 0.99, 0.995])
    for (const alpha of [0.02, 0.035, 0.05, 0.07, 0.1])
      for (const fastHalfLifeMin of [1, 2, 3, 5, 8])
        for (const slowHalfLifeMin of [120, 240, 480]) {
          const realized: RealizedDynamics = { ...constants, alpha, persistence }
          const variance = {
            ...params.variance,
            fastHalfLifeMin,
            slowHalfLifeMin,
            fastWeight: 1,
            slowWeight: 0,
          }
          const p = { ...params, variance: { ...variance, realized } }
          // the filter's path (reverting part) and slow level at each point
          const paths: number[] = []
          const slows: number[] = []
          let next = 0
          runs.forEach((closes, run) => {
            const filter = realizedFilter(p, realized)
            closes.forEach((c, index) => {
              filter.add(c)
              while (
                next < points.length &&
                (points[next] as Point).run === run &&
                (points[next] as Point).index === index
              ) {
                const level = filter.levelAt(c.at)
                paths.push(level.over(HORIZON_MINUTES))
                slows.push(level.slow)
                next++
              }
            })
          })
          for (let wf = 0; wf <= 1.0001; wf += 0.1)
            for (let ws = 0; wf + ws <= 1.0001; ws += 0.1) {
              let loss = 0
              for (let i = 0; i < points.length; i++) {
                const h = wf * (paths[i] as number) + ws * (slows[i] as number) + (1 - wf - ws)
                const q = Math.max(1e-6, (points[i] as Point).realised) / h
                loss += q - Math.log(q) - 1
              }
              if (loss < best.loss)
                best = {
                  loss,
                  variance: {
                    ...variance,
                    fastWeight: round(wf, 2),
                    slowWeight: round(ws, 2),
                    realized,
                  },
                }
            }
        }
  return { variance: best.variance, qlike: best.loss / points.length, points: points.length }
}
