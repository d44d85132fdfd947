// `npm run fit:model`: fits model v2's parameter file from training sandbox seeds (never the seeds it
// is judged on) and writes src/model/params/settle-mean-t-2.json. Stages:
//   A. the seasonal table and σ̄ from the proxy's one-minute returns (winsorised, factored by hour,
//      minute-of-hour group and weekend, hours smoothed over their neighbours);
//   B. the variance dynamics (fast/slow half-lives and weights) by QLIKE against the realised
//      variance of the next 14 minutes, at every contest's first reading;
//   C. from the readings the engine would have made: the variance scale and the t's ν by log loss on
//      the outcomes, the basis variance from the settlements, then the pooling weight with the mid.
// Usage: node tools/fit-model.ts [--seeds 1001,1002,1003] [--from 2026-06-01] [--days 20] [--out FILE]
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { MINUTE_MS } from '../src/domain/contest.ts'
import { chooseSide, LONG_SHOT_ASK_CENTS } from '../src/domain/model.ts'
import { stampedCloses } from '../src/engine/reading.ts'
import { estimateBasis } from '../src/model/basis.ts'
import {
  checkModelV2Params,
  MINUTE_GROUPS,
  type MinuteGroup,
  type ModelV2Params,
  modelV2Version,
  type PoolBucket,
} from '../src/model/params.ts'
import { scaledReturns } from '../src/model/returns.ts'
import { isWeekend, minuteGroup } from '../src/model/seasonal.ts'
import { logitOf, poolLogOdds } from '../src/model/settlement-mean-model.ts'
import { unitStudentTCdf } from '../src/model/student-t.ts'
import { settlementVariance, volatilityLevel } from '../src/model/variance.ts'
import { DAY_MS, forEachSandboxReading, sandboxWorld } from './sandbox-readings.ts'

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1001,1002,1003' },
    from: { type: 'string', default: '2026-06-01' },
    days: { type: 'string', default: '20' },
    out: { type: 'string', default: 'src/model/params/settle-mean-t-2.json' },
  },
})
const seeds = values.seeds.split(',').map(Number)
const from = Date.parse(`${values.from}T00:00:00Z`)
const days = Number(values.days)
const WARMUP_DAYS = 1
const log = (msg: string) => process.stderr.write(`fit:model: ${msg}\n`)

const HOURS = 24
/** minutes-left buckets of the pooling */
const POOL_BUCKETS = [
  [1, 1],
  [2, 2],
  [3, 7],
  [8, 14],
] as const

/** Newton's method for a logistic regression on three columns (the first the constant). */
function logisticFit(x: readonly number[][], y: readonly number[]): [number, number, number] {
  const beta = [0, 1, 0]
  for (let iter = 0; iter < 50; iter++) {
    const g = [0, 0, 0]
    const h = [
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]
    for (let i = 0; i < x.length; i++) {
      const row = x[i]!
      const mu = 1 / (1 + Math.exp(-(beta[0]! * row[0]! + beta[1]! * row[1]! + beta[2]! * row[2]!)))
      const w = mu * (1 - mu)
      for (let a = 0; a < 3; a++) {
        g[a]! += (y[i]! - mu) * row[a]!
        for (let b = 0; b < 3; b++) h[a]![b]! += w * row[a]! * row[b]!
      }
    }
    const step = solve3(h, g)
    for (let j = 0; j < 3; j++) beta[j]! += step[j]!
    if (step.every((s) => Math.abs(s) < 1e-10)) break
  }
  return [beta[0]!, beta[1]!, beta[2]!]
}

/** Solves the 3×3 system m·s = g by Cramer's rule. */
function solve3(m: number[][], g: number[]): number[] {
  const det = (a: number[][]) =>
    a[0]![0]! * (a[1]![1]! * a[2]![2]! - a[1]![2]! * a[2]![1]!) -
    a[0]![1]! * (a[1]![0]! * a[2]![2]! - a[1]![2]! * a[2]![0]!) +
    a[0]![2]! * (a[1]![0]! * a[2]![1]! - a[1]![1]! * a[2]![0]!)
  const d = det(m)
  return [0, 1, 2].map((c) => det(m.map((row, r) => row.map((v, j) => (j === c ? g[r]! : v)))) / d)
}
const GROUP_SHARE: Record<MinuteGroup, number> = {
  hour: 1 / 60,
  quarter: 3 / 60,
  five: 8 / 60,
  other: 48 / 60,
}

type Ret = { at: number; r2: number; hour: number; group: MinuteGroup; weekend: boolean }

function flatSeasonal(): ModelV2Params['seasonal'] {
  return { hour: new Array(HOURS).fill(1), minute: { hour: 1, quarter: 1, five: 1, other: 1 }, weekend: 1 }
}

/** Stage A: the seasonal table (sd factors) and σ̄ from one-minute returns. */
function fitSeasonal(rets: readonly Ret[]): { seasonal: ModelV2Params['seasonal']; sigmaBar: number } {
  const sorted = rets.map((r) => r.r2).sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)] as number
  const cap = 36 * (median / 0.455)
  const x = rets.map((r) => Math.min(r.r2, cap))
  const h2 = new Array<number>(HOURS).fill(1)
  const m2: Record<MinuteGroup, number> = { hour: 1, quarter: 1, five: 1, other: 1 }
  let w2 = 1
  for (let iter = 0; iter < 6; iter++) {
    const hs = new Array<number>(HOURS).fill(0)
    const hn = new Array<number>(HOURS).fill(0)
    rets.forEach((r, i) => {
      hs[r.hour] = (hs[r.hour] as number) + (x[i] as number) / (m2[r.group] * (r.weekend ? w2 : 1))
      hn[r.hour] = (hn[r.hour] as number) + 1
    })
    for (let h = 0; h < HOURS; h++) h2[h] = (hs[h] as number) / Math.max(1, hn[h] as number)
    const gs: Record<MinuteGroup, number> = { hour: 0, quarter: 0, five: 0, other: 0 }
    const gn: Record<MinuteGroup, number> = { hour: 0, quarter: 0, five: 0, other: 0 }
    rets.forEach((r, i) => {
      gs[r.group] += (x[i] as number) / ((h2[r.hour] as number) * (r.weekend ? w2 : 1))
      gn[r.group]++
    })
    for (const g of MINUTE_GROUPS) m2[g] = gs[g] / Math.max(1, gn[g])
    let we = 0
    let wen = 0
    let wd = 0
    let wdn = 0
    rets.forEach((r, i) => {
      const v = (x[i] as number) / ((h2[r.hour] as number) * m2[r.group])
      if (r.weekend) {
        we += v
        wen++
      } else {
        wd += v
        wdn++
      }
    })
    w2 = wen > 0 && wdn > 0 ? we / wen / (wd / wdn) : 1
    // normalise: minute groups average 1 over an hour, hours average 1 over a day
    const mNorm = MINUTE_GROUPS.reduce((a, g) => a + GROUP_SHARE[g] * m2[g], 0)
    for (const g of MINUTE_GROUPS) m2[g] /= mNorm
    const hNorm = h2.reduce((a, b) => a + b, 0) / HOURS
    for (let h = 0; h < HOURS; h++) h2[h] = (h2[h] as number) / hNorm
  }
  // smooth the hours over their neighbours (circular), then renormalise
  const smooth = h2.map(
    (_, h) =>
      0.25 * (h2[(h + HOURS - 1) % HOURS] as number) +
      0.5 * (h2[h] as number) +
      0.25 * (h2[(h + 1) % HOURS] as number),
  )
  const seasonal = {
    hour: smooth.map((v) => round(Math.sqrt(v), 4)),
    minute: Object.fromEntries(MINUTE_GROUPS.map((g) => [g, round(Math.sqrt(m2[g]), 4)])) as Record<
      MinuteGroup,
      number
    >,
    weekend: round(Math.sqrt(w2), 4),
  }
  let total = 0
  rets.forEach((r, i) => {
    const f =
      (seasonal.hour[r.hour] as number) * seasonal.minute[r.group] * (r.weekend ? seasonal.weekend : 1)
    total += (x[i] as number) / (f * f)
  })
  return { seasonal, sigmaBar: round(Math.sqrt(total / rets.length), 7) }
}

function round(x: number, digits: number): number {
  const f = 10 ** digits
  return Math.round(x * f) / f
}

const base: ModelV2Params = checkModelV2Params({
  model: 'settle-mean-t-2',
  sigmaBar: 0.0006,
  seasonal: flatSeasonal(),
  variance: {
    fastHalfLifeMin: 20,
    slowHalfLifeMin: 480,
    fastWeight: 0.5,
    slowWeight: 0.4,
    winsorSd: 5,
    scale: 1,
  },
  nu: 12,
  basis: { samples: 16, shrink: 1, variance: 0 },
  pool: [],
  sideChoice: { varianceBand: 1 },
  training: { seeds, days, from: new Date(from).toISOString().slice(0, 10), readings: 0 },
})

// ---- gather the proxy's closes of every training seed
type SeedData = { seed: number; closes: { at: number; priceDollars: number }[] }
const data: SeedData[] = []
for (const seed of seeds) {
  const world = sandboxWorld(seed)
  const end = from + days * DAY_MS
  const minutes = (days + WARMUP_DAYS) * 1440
  const closes = await stampedCloses(world.feed, end, minutes)
  data.push({ seed, closes })
  log(`seed ${seed}: ${closes.length} closes`)
}

// ---- stage A
const rets: Ret[] = []
for (const d of data) {
  for (let i = 1; i < d.closes.length; i++) {
    const a = d.closes[i - 1]!
    const b = d.closes[i]!
    if (b.at - a.at !== MINUTE_MS || a.at < from) continue
    const r = Math.log(b.priceDollars / a.priceDollars)
    const minuteOfDay = Math.floor(a.at / MINUTE_MS) % 1440
    rets.push({
      at: a.at,
      r2: r * r,
      hour: Math.floor(minuteOfDay / 60),
      group: minuteGroup(minuteOfDay % 60),
      weekend: isWeekend(a.at),
    })
  }
}
const stageA = fitSeasonal(rets)
let params: ModelV2Params = { ...base, ...stageA }
log(
  `stage A: σ̄ ${stageA.sigmaBar}, minute groups ${JSON.stringify(stageA.seasonal.minute)}, weekend ${stageA.seasonal.weekend}`,
)

// ---- stage B: QLIKE of the level against the next 14 minutes' realised scaled variance
type Point = { returns: ReturnType<typeof scaledReturns>; at: number; realised: number }
const points: Point[] = []
for (const d of data) {
  const all = scaledReturns(d.closes, params)
  for (let t = from; t < from + days * DAY_MS; t += 15 * MINUTE_MS) {
    const at = t + MINUTE_MS
    const window = all.filter((r) => r.at <= at && r.at > at - 1440 * MINUTE_MS)
    const ahead = all.filter((r) => r.at > at && r.at <= at + 14 * MINUTE_MS)
    if (window.length < 60 || ahead.length < 10) continue
    const realised =
      ahead.reduce((a, r) => a + r.scaledSquare * r.minutes, 0) / ahead.reduce((a, r) => a + r.minutes, 0)
    points.push({ returns: window, at, realised })
  }
}
let best = { loss: Number.POSITIVE_INFINITY, variance: params.variance }
for (const fastHalfLifeMin of [10, 20, 40]) {
  for (const slowHalfLifeMin of [240, 480, 1440]) {
    const p = { ...params, variance: { ...params.variance, fastHalfLifeMin, slowHalfLifeMin } }
    const levels = points.map((pt) => volatilityLevel(pt.returns, pt.at, p))
    for (let wf = 0; wf <= 1.0001; wf += 0.1) {
      for (let ws = 0; wf + ws <= 1.0001; ws += 0.1) {
        let loss = 0
        levels.forEach((l, i) => {
          const h = wf * l.fast + ws * l.slow + (1 - wf - ws)
          const q = Math.max(1e-6, (points[i] as Point).realised) / h
          loss += q - Math.log(q) - 1
        })
        if (loss < best.loss)
          best = {
            loss,
            variance: { ...p.variance, fastWeight: round(wf, 2), slowWeight: round(ws, 2) },
          }
      }
    }
  }
}
params = { ...params, variance: best.variance }
log(
  `stage B: ${JSON.stringify(best.variance)} (QLIKE ${(best.loss / points.length).toFixed(4)} over ${points.length} points)`,
)

// ---- stage C: readings the engine would make, priced with A and B
type Obs = {
  z0: number
  v: number
  centre: number
  mid: number | null
  y: number
  spot: number
  left: number
  upAsk: number | null
  downAsk: number | null
  /** the sandbox's hidden P(up) at the reading (training seeds only: the side choice's check) */
  truth: number | null
}
const obs: Obs[] = []
const basisErrors: number[] = []
for (const d of data) {
  const world = sandboxWorld(d.seed)
  // each contest's basis estimate at its last reading, to be set against the basis it settled on
  const lastEstimates: { ticker: string; expiresAt: number; estimate: number; spot: number }[] = []
  await forEachSandboxReading(world, { from, days }, (r) => {
    if (r.settledSide === null) return
    const level = volatilityLevel(
      scaledReturns(r.inputs.closes, params),
      r.inputs.spotObservedAt,
      params,
    ).level
    const noBasis = { ...params, basis: { ...params.basis, variance: 0 } }
    const v = settlementVariance(r.inputs.spotObservedAt, r.expiresAt, level, noBasis).variance
    const basis = estimateBasis(r.inputs.basisSamples, r.inputs.spotObservedAt, params.basis)
    const centre = Math.log((r.inputs.spotDollars - basis) / (r.inputs.strikeDollars - 0.005))
    obs.push({
      z0: centre / Math.sqrt(v),
      v,
      centre,
      mid: r.inputs.midProbability,
      y: r.settledSide === 'up' ? 1 : 0,
      spot: r.inputs.spotDollars,
      left: Math.ceil((r.expiresAt - r.inputs.spotObservedAt) / MINUTE_MS - 1e-9),
      upAsk: r.quote.upAskCents,
      downAsk: r.quote.downAskCents,
      truth: r.oracle,
    })
    if (r.minute === 14)
      lastEstimates.push({
        ticker: r.ticker,
        expiresAt: r.expiresAt,
        estimate: basis,
        spot: r.inputs.spotDollars,
      })
  })
  for (const e of lastEstimates) {
    const result = await world.venue.result(e.ticker, e.expiresAt + DAY_MS)
    if (result?.kind !== 'settled' || result.priceDollars === null) continue
    let sum = 0
    let n = 0
    for (let t = e.expiresAt - MINUTE_MS; t < e.expiresAt; t += 1000) {
      const p = await world.feed.spotAt(t)
      if (p !== null) {
        sum += p
        n++
      }
    }
    if (n < 30) continue
    const realised = sum / n - result.priceDollars
    basisErrors.push(((realised - e.estimate) / e.spot) ** 2)
  }
  log(`seed ${d.seed}: ${obs.length} readings so far`)
}
// the basis estimate's error variance (relative, squared), added to the settlement variance
const basisVariance = basisErrors.length > 0 ? basisErrors.reduce((a, b) => a + b, 0) / basisErrors.length : 0
params = { ...params, basis: { ...params.basis, variance: Number(basisVariance.toPrecision(3)) } }
log(`basis: error variance ${params.basis.variance} over ${basisErrors.length} settlements`)
for (const o of obs) o.z0 = o.centre / Math.sqrt(o.v + params.basis.variance)
const logLoss = (p: number, y: number) => {
  const q = Math.min(1 - 1e-4, Math.max(1e-4, p))
  return -(y * Math.log(q) + (1 - y) * Math.log(1 - q))
}
let bestC = { loss: Number.POSITIVE_INFINITY, nu: params.nu, scale: 1 }
for (const nu of [4, 5, 6, 8, 10, 12, 16, 24, 50, 1000]) {
  for (let scale = 0.6; scale <= 1.6001; scale += 0.05) {
    let loss = 0
    for (const o of obs)
      loss += logLoss(unitStudentTCdf(o.centre / Math.sqrt(scale * o.v + params.basis.variance), nu), o.y)
    if (loss < bestC.loss) bestC = { loss, nu, scale: round(scale, 2) }
  }
}
params = { ...params, nu: bestC.nu, variance: { ...params.variance, scale: bestC.scale } }
log(
  `stage C: ν ${bestC.nu}, scale ${bestC.scale} (log loss ${(bestC.loss / obs.length).toFixed(5)} over ${obs.length} readings)`,
)
// pooling with the mid: a logistic regression of the outcome on the two log-odds, per bucket
const modelP = (o: Obs) =>
  unitStudentTCdf(o.centre / Math.sqrt(bestC.scale * o.v + params.basis.variance), bestC.nu)
const pool: PoolBucket[] = []
for (const [fromMinutesLeft, toMinutesLeft] of POOL_BUCKETS) {
  const rows = obs.filter((o) => o.mid !== null && o.left >= fromMinutesLeft && o.left <= toMinutesLeft)
  const beta = logisticFit(
    rows.map((o) => [1, logitOf(modelP(o)), logitOf(o.mid as number)]),
    rows.map((o) => o.y),
  )
  const bucket = {
    fromMinutesLeft,
    toMinutesLeft,
    intercept: round(beta[0], 4),
    model: round(beta[1], 4),
    mid: round(beta[2], 4),
  }
  let before = 0
  let after = 0
  for (const o of rows) {
    before += logLoss(modelP(o), o.y)
    after += logLoss(poolLogOdds(modelP(o), o.mid as number, bucket), o.y)
  }
  pool.push(bucket)
  log(
    `pool ${fromMinutesLeft}–${toMinutesLeft} min left: ${JSON.stringify(bucket)} (log loss ${(before / rows.length).toFixed(5)} → ${(after / rows.length).toFixed(5)} over ${rows.length})`,
  )
}
params = { ...params, pool, training: { ...params.training, readings: obs.length } }

// ---- stage D: the side choice (decisions §11). The long shot's probability is taken at the end of a
// variance band [V·b, V/b] that makes it least likely; b is the widest-kept (closest to 1) band on the
// grid under which no training reading buys a long shot (entry < 2 ¢) its truth does not back: a
// confidence above the sandbox's hidden probability by more than the 0.1 ¢ tick.
const BANDS = [1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.15, 0.1, 0.07, 0.05, 0.03, 0.02, 0.01]
const bandTrial = (band: number) => {
  let artefacts = 0
  let flips = 0
  for (const o of obs) {
    if (o.truth === null) continue
    const variance = bestC.scale * o.v + params.basis.variance
    const at = (v: number) => unitStudentTCdf(o.centre / Math.sqrt(v), bestC.nu)
    const bucket = params.pool.find((b) => o.left >= b.fromMinutesLeft && o.left <= b.toMinutesLeft)
    const pooled = (q: number) => (o.mid !== null && bucket ? poolLogOdds(q, o.mid, bucket) : q)
    const p = pooled(at(variance))
    const ends = [at(variance * band), at(variance / band)]
    const choice = pooled(p < 0.5 ? Math.min(...ends) : Math.max(...ends))
    const quote = { upAskCents: o.upAsk, downAskCents: o.downAsk }
    const reading = chooseSide(p, quote, choice)
    if (!reading) continue
    if (reading.side !== chooseSide(p, quote)?.side) flips++
    const truth = reading.side === 'up' ? o.truth : 1 - o.truth
    if (reading.entryPriceCents < LONG_SHOT_ASK_CENTS && reading.confidence / 100 > truth + 0.001) artefacts++
  }
  return { band, artefacts, flips }
}
let chosen = bandTrial(1)
log(`side choice: band 1 (none): ${chosen.artefacts} long-shot artefacts`)
for (const band of BANDS.slice(1)) {
  if (chosen.artefacts === 0) break
  const trial = bandTrial(band)
  log(`side choice: band ${band}: ${trial.artefacts} long-shot artefacts, ${trial.flips} sides changed`)
  if (trial.artefacts < chosen.artefacts) chosen = trial
}
params = { ...params, sideChoice: { varianceBand: chosen.band } }
log(`side choice: variance band ${chosen.band} (${chosen.artefacts} artefacts on the training readings)`)

const checked = checkModelV2Params(params)
writeFileSync(values.out, `${JSON.stringify(checked, null, 2)}\n`)
// in the repository's own JSON style, so a refit's diff shows only the numbers that moved
spawnSync(join(import.meta.dirname, '..', 'node_modules', '.bin', 'biome'), ['format', '--write', values.out])
log(`wrote ${values.out}: ${modelV2Version(checked)}`)
