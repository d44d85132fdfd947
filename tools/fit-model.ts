// `npm run fit:model`: fits model v2's parameter file from training data the model is never judged on
// — sandbox seeds, or tapes recorded live or imported (`--tapes DIR --until T`) — and writes
// src/model/params/settle-mean-t-2.json (or --out). Every stage reads only what a recording of a real
// venue holds: the proxy's closes, the readings the engine's own reading step makes, the outcomes and
// settlement prices (decisions §15; no stage may need a hidden truth: test/fit-model-truth.test.ts).
//   A. the seasonal table and σ̄ from the proxy's one-minute returns;
//   B. the variance dynamics by QLIKE against the realised variance of the next 14 minutes (where
//      the closes carry their minutes' seconds, the realised-GARCH filter's: fit/realized-stage.ts);
//   C. from the readings: the basis error variance from the settlements, the variance scale and the
//      t's ν by log loss on the outcomes, then the pooling with the book per minutes-left bucket and
//      the book weight's dependence on its spread and age;
//   D. (--polymarket-tapes) Polymarket's own pool and the error of the engine's strike estimate,
//      measured at window edges, on that venue's readings (tools/fit/polymarket-stage.ts);
//   E. (--minute-tapes) the pool of readings priced from one-minute closes alone, on a real venue's
//      one-minute history (tools/fit/minute-stage.ts);
//   R. (--book-read) after C: the crowd's map for reading the index from the book, by minutes left,
//      and the main pool refitted on the read (tools/fit/book-read-stage.ts).
// Usage: node tools/fit-model.ts [--seeds 1001,…,1008] [--crowds ewma,shrink,drift,ewma-late]
//        [--from 2026-06-01] [--days 10] [--out FILE]
//        node tools/fit-model.ts --tapes DIR [--since T] [--until T] [--out FILE]
//        … [--polymarket-tapes DIR[,DIR…]]: Polymarket tape sets (`sim tape --venue polymarket`, one
//        per crowd for a mixture, or recorded)
//        … [--polymarket-certainty-powers 0,0.25,…]: the mid's fading powers Polymarket's pool may
//        choose from (default POLYMARKET_CERTAINTY_POWERS: 0.5, chosen on validation seeds)
//        … [--tails-grid coarse|fine]: stage C's grid of ν and variance scales (coarse: the shipped
//        file's; fine: scales by 0.01 and ν = 7 too)
//        … [--minute-tapes DIR]: one-minute history of a real venue (`history import`, `real-data:tapes`)
//        node tools/fit-model.ts --base FILE --minute-tapes DIR [--since T] [--until T] [--out FILE]:
//        stage E alone on FILE's stages A–D
//        node tools/fit-model.ts --base FILE --polymarket-tapes DIR[,DIR…] [--out FILE]: stage D alone
//        on FILE's stages A–C (with --minute-tapes too, D then E); --keep-polymarket-pool: D measures
//        the errors again and keeps FILE's pool and book
//        node tools/fit-model.ts --base FILE --book-read [--seeds …] [--out FILE]: stage R alone on
//        FILE's stages A–C, on the seeds' readings
//        … [--book-read-lag]: stage R prices the read's hypotheses for the book at the spot of the
//        crowd's measured lag (the file's bookReadAtLag)
//        … [--polymarket-level-tails]: stage D writes the level error's measured shapes too (a
//        candidate not adopted: docs/model.md, "The level error's tail")
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseInstant } from '../src/domain/instant.ts'
import { parseSimParams } from '../src/feeds/sim/sim-params-text.ts'
import {
  checkModelV2Params,
  type ModelV2Params,
  modelV2Version,
  type VenuePool,
} from '../src/model/params.ts'
import { TapeError } from '../src/tape/tape-reader.ts'
import { fitBookRead } from './fit/book-read-stage.ts'
import { type FitSource, unionFitSource } from './fit/fit-source.ts'
import { fitReturnsOnlyPool } from './fit/minute-stage.ts'
import { fitPolymarket, POLYMARKET_CERTAINTY_POWERS } from './fit/polymarket-stage.ts'
import { fitRealizedDynamics, measureSeconds } from './fit/realized-stage.ts'
import { sandboxFitSource } from './fit/sandbox-source.ts'
import {
  type BasisError,
  basisErrorOf,
  basisErrorVariance,
  fitPool,
  fitRangeScale,
  fitSeasonal,
  fitTails,
  fitVarianceDynamics,
  flatSeasonal,
  modelProbability,
  type PricedObservation,
  pricedObservation,
  TAILS_GRIDS,
  type TailsGrid,
  withoutRanges,
} from './fit/stages.ts'
import { type TapeSpan, tapeFitSource } from './fit/tape-source.ts'
import { parseToolArgs } from './tool-args.ts'

const { values } = parseToolArgs(
  'fit:model',
  'fits v2’s parameter file from sandbox seeds or tapes, never from a hidden truth (docs/model.md)',
  {
    options: {
      seeds: { type: 'string', default: '1001,1002,1003,1004,1005,1006,1007,1008' },
      // the crowds the seeds get in turn (SIM_PARAMS presets): the pool learns several ways a crowd
      // errs; the sweep's other presets (informed, floor, wide-stale, one-sided) stay unseen
      crowds: { type: 'string', default: 'ewma,shrink,drift,ewma-late' },
      from: { type: 'string', default: '2026-06-01' },
      days: { type: 'string', default: '10' },
      tapes: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      out: { type: 'string', default: 'src/model/params/settle-mean-t-2.json' },
      'polymarket-tapes': { type: 'string' },
      'polymarket-certainty-powers': { type: 'string', default: POLYMARKET_CERTAINTY_POWERS.join(',') },
      // stage E: tapes of one-minute history from a real venue (returnsOnlyPool)
      'minute-tapes': { type: 'string' },
      // stage E alone, stages A–D taken from this parameter file (--since/--until then bound the minute tapes)
      base: { type: 'string' },
      // with --base: stage D measures Polymarket's errors again but keeps --base's pool and book, so
      // a measured term can be judged alone (docs/model.md, "The level error's tail")
      'keep-polymarket-pool': { type: 'boolean', default: false },
      // stage D writes the level error's measured shapes (venuePools.polymarket.strikeTail, basisTail):
      // a candidate judged and not adopted (docs/model.md, "The level error's tail")
      'polymarket-level-tails': { type: 'boolean', default: false },
      // stage C's grid of ν and variance scales (TAILS_GRIDS): coarse made the shipped file
      'tails-grid': { type: 'string', default: 'coarse' },
      // stage R: the index read from the book (a candidate until judged: docs/model.md)
      'book-read': { type: 'boolean', default: false },
      // stage R prices the read's hypotheses for the book at the crowd's measured lag (bookReadAtLag)
      'book-read-lag': { type: 'boolean', default: false },
    },
  },
)
const log = (msg: string) => process.stderr.write(`fit:model: ${msg}\n`)
const fail = (msg: string): never => {
  log(msg)
  process.exit(2)
}
if (values['book-read-lag'] && !values['book-read'])
  fail('--book-read-lag reads the book in stage R: give --book-read too')
if (values['keep-polymarket-pool'] && (values.base === undefined || values['polymarket-tapes'] === undefined))
  fail('--keep-polymarket-pool needs --base FILE and --polymarket-tapes DIR[,DIR…]')
const powerTexts = values['polymarket-certainty-powers'].split(',')
const certaintyPowers = powerTexts.map(Number)
if (powerTexts.some((t) => !/^\d+(\.\d+)?$/.test(t.trim())))
  fail('--polymarket-certainty-powers must be numbers of at least 0, separated by commas')
const tailsGrid: TailsGrid = Object.hasOwn(TAILS_GRIDS, values['tails-grid'])
  ? (values['tails-grid'] as TailsGrid)
  : fail(`--tails-grid must be one of ${Object.keys(TAILS_GRIDS).join(', ')}`)
const instant = (flag: string, text: string | undefined): number | undefined => {
  if (text === undefined) return undefined
  return parseInstant(text) ?? fail(`${flag} must be an RFC 3339 instant or a YYYY-MM-DD date`)
}

/** A tape set read as a fit's source, or one line (after `prefix`) when it cannot be read. */
async function tapeSource(target: string, span: TapeSpan, prefix = ''): Promise<FitSource> {
  try {
    return await tapeFitSource(target, span)
  } catch (err) {
    return fail(`${prefix}${err instanceof Error ? err.message : String(err)}`)
  }
}

async function sourceOf(): Promise<FitSource> {
  if (values.tapes !== undefined) {
    const span = { since: instant('--since', values.since), until: instant('--until', values.until) }
    return tapeSource(values.tapes, span)
  }
  if (values.since !== undefined || values.until !== undefined) fail('--since and --until go with --tapes')
  const seeds = values.seeds.split(',').map(Number)
  const crowds = values.crowds.split(',')
  for (const c of crowds) if (typeof parseSimParams(c) === 'string') fail(`--crowds: no preset ${c}`)
  return sandboxFitSource(seeds, Date.parse(`${values.from}T00:00:00Z`), Number(values.days), crowds)
}

/** One tape set, or several separated by commas (one per crowd: a mixture, as the main fit's seeds). */
async function polymarketSource(targets: string): Promise<FitSource> {
  try {
    return unionFitSource(await Promise.all(targets.split(',').map((t) => tapeFitSource(t, {}))))
  } catch (err) {
    return fail(`--polymarket-tapes: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/** A bad tape met part-way is one line for the operator, never a stack. */
async function orBadTape<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (err) {
    if (err instanceof TapeError) fail(`the tapes are bad: ${err.message}`)
    throw err
  }
}

/** Stages A–D on the training data: a whole parameter file but for stage E. */
async function fitMain(): Promise<ModelV2Params> {
  const source = await sourceOf()
  const runs = await orBadTape(source.closeRuns())
  log(
    `${runs.reduce((a, r) => a + r.length, 0)} closes; contests expiring ${new Date(source.from).toISOString()} – ${new Date(source.until).toISOString()}`,
  )

  let params: ModelV2Params = {
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
    book: { spreadPower: 1, agePower: 1 },
    training: source.training(0, 0),
  }

  // ---- stage A
  const stageA = fitSeasonal(runs, source.closesFrom, source.until)
  params = { ...params, seasonal: stageA.seasonal, sigmaBar: stageA.sigmaBar }
  log(
    `stage A: σ̄ ${stageA.sigmaBar} over ${stageA.returns} returns, minute groups ${JSON.stringify(stageA.seasonal.minute)}, weekend ${stageA.seasonal.weekend}`,
  )

  // ---- stage B: the returns-only dynamics on the closes without their ranges, then the ranged ones
  const stageB = fitVarianceDynamics(withoutRanges(runs), source.closesFrom, source.until, params)
  params = { ...params, variance: stageB.variance }
  log(
    `stage B: ${JSON.stringify(stageB.variance)} (QLIKE ${stageB.qlike.toFixed(4)} over ${stageB.points} points)`,
  )
  const ranges = fitRangeScale(runs, source.closesFrom, source.until)
  if (ranges.rangeScale === undefined) {
    log(`stage B: ${ranges.minutes} minutes with a range, under a day: returns only`)
  } else {
    const rangeScale = ranges.rangeScale
    // where the closes carry their minutes' seconds, the whole-minute level is the realised filter's,
    // else the ranges' EWMA: only one of the two is fitted
    const seconds = measureSeconds(runs, source.closesFrom, source.until)
    if (seconds === undefined) {
      const ranged = fitVarianceDynamics(runs, source.closesFrom, source.until, {
        ...params,
        variance: { ...params.variance, rangeScale },
      })
      params = { ...params, ranged: { variance: { ...ranged.variance, rangeScale }, nu: params.nu } }
      log(
        `stage B, ranged (under a day of minutes with their seconds): range scale ${rangeScale} over ${ranges.minutes} minutes; ${JSON.stringify(ranged.variance)} (QLIKE ${ranged.qlike.toFixed(4)} over ${ranged.points} points)`,
      )
    } else {
      const realized = fitRealizedDynamics(runs, source.closesFrom, source.until, params, seconds)
      params = { ...params, ranged: { variance: { ...realized.variance, rangeScale }, nu: params.nu } }
      log(
        `stage B, seconds: range scale ${rangeScale}; noise floor ${seconds.noiseFloor}, scale ${seconds.secondsScale} over ${seconds.minutes} minutes; ${JSON.stringify(realized.variance)} (QLIKE against the seconds ${realized.qlike.toFixed(4)} over ${realized.points} points)`,
      )
    }
  }

  // ---- stage C: the readings the engine would make, priced with A and B
  const { obs, basisErrors, contests } = await stageCReadings(source, params)
  // the basis estimate's error variance (relative, squared), added to the settlement variance
  params = { ...params, basis: { ...params.basis, variance: basisErrorVariance(basisErrors) ?? 0 } }
  log(`basis: error variance ${params.basis.variance} over ${basisErrors.length} settlements`)
  const tails = fitTails(obs, params.basis.variance, tailsGrid)
  params = { ...params, nu: tails.nu, variance: { ...params.variance, scale: tails.scale } }
  log(
    `stage C: ν ${tails.nu}, scale ${tails.scale} (log loss ${tails.logLoss.toFixed(5)} over ${obs.length} readings)`,
  )
  const rangedObs = obs.flatMap((o) => (o.vRanged === undefined ? [] : [{ ...o, v: o.vRanged }]))
  if (params.ranged && rangedObs.length > 0) {
    const t = fitTails(rangedObs, params.basis.variance, tailsGrid)
    params = { ...params, ranged: { variance: { ...params.ranged.variance, scale: t.scale }, nu: t.nu } }
    log(
      `stage C, ranged: ν ${t.nu}, scale ${t.scale} (log loss ${t.logLoss.toFixed(5)} over ${rangedObs.length} readings)`,
    )
  } else if (params.ranged) {
    // no reading the engine would price from ranges: nothing to fit their tails on, so none kept
    const { ranged: _, ...rest } = params
    params = rest
  }
  const fitted = params
  const pooled = fitPool(
    obs,
    (o) =>
      modelProbability(
        { centre: o.centre, v: o.vRanged ?? o.v },
        fitted.basis.variance + (o.noise ?? 0),
        fitted,
        o.vRanged !== undefined,
      ),
    log,
  )
  params = {
    ...params,
    pool: pooled.pool,
    book: pooled.book,
    training: source.training(obs.length, contests),
  }
  if (values['book-read']) params = withBookRead(params, obs)

  // ---- stage D: Polymarket's own pool and strike-estimate error, on its own readings
  if (values['polymarket-tapes'] !== undefined) {
    const source = await polymarketSource(values['polymarket-tapes'])
    const poly = await orBadTape(
      fitPolymarket(source, params, log, certaintyPowers, values['polymarket-level-tails']),
    )
    params = { ...params, venuePools: { polymarket: poly } }
  }
  return params
}

/**
 * Stage C's readings: each settled reading the engine would make, priced with `params`' stages A and B
 * both ways where it has ranges (the returns-only tails are fitted on every reading, as a feed without
 * ranges would price them; the ranged ones on those the engine prices so), and the basis estimate's
 * error at each settlement.
 */
async function stageCReadings(
  source: FitSource,
  params: ModelV2Params,
): Promise<{ obs: PricedObservation[]; basisErrors: BasisError[]; contests: number }> {
  const obs: PricedObservation[] = []
  const basisErrors: BasisError[] = []
  const contests = new Set<string>()
  await orBadTape(
    source.forEachReading((r) => {
      if (r.settledSide === null) return
      contests.add(r.ticker)
      const { obs: o, basis, noise } = pricedObservation({ ...r, settledSide: r.settledSide }, params)
      obs.push(o)
      // the basis estimate at the last reading against the basis the settlement showed
      const error = basisErrorOf(r, basis, noise)
      if (error) basisErrors.push(error)
    }),
  )
  if (obs.length === 0) fail('no graded reading in the span: nothing to fit stage C on')
  log(`${obs.length} readings of ${contests.size} settled contests`)
  return { obs, basisErrors, contests: contests.size }
}

/**
 * Stage R on stage C's readings: the crowd's maps, and the main pool and its book weight refitted on
 * the read. The maps go after the book weighting, every other key where it was, so a refit's diff
 * shows only what moved.
 */
function withBookRead(params: ModelV2Params, obs: readonly PricedObservation[]): ModelV2Params {
  const atLag = values['book-read-lag']
  const { bookRead, pooled } = fitBookRead(obs, params, log, atLag)
  const { bookRead: _, bookReadAtLag: __, ...rest } = params
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(rest)) {
    out[key] = key === 'pool' ? pooled.pool : key === 'book' ? pooled.book : value
    if (key === 'book') {
      out.bookRead = bookRead
      if (atLag) out.bookReadAtLag = true
    }
  }
  return out as ModelV2Params
}

/**
 * The file a run of stage D or E alone starts from (--base): every other stage as it was fitted, the
 * stages it refits taken out; and its own Polymarket pool, which --keep-polymarket-pool keeps.
 */
function readBase(file: string): { params: ModelV2Params; polymarketPool: VenuePool | undefined } {
  try {
    const { returnsOnlyPool, venuePools, ...base } = checkModelV2Params(
      JSON.parse(readFileSync(file, 'utf8')),
    )
    const params = {
      ...base,
      ...(values['polymarket-tapes'] !== undefined || venuePools === undefined ? {} : { venuePools }),
      ...(values['minute-tapes'] !== undefined || returnsOnlyPool === undefined ? {} : { returnsOnlyPool }),
    }
    return { params, polymarketPool: venuePools?.polymarket }
  } catch (err) {
    return fail(`--base ${file}: ${err instanceof Error ? err.message : String(err)}`)
  }
}

const base = values.base === undefined ? undefined : readBase(values.base)
let params = base?.params ?? (await fitMain())
const basePolymarketPool = base?.polymarketPool
if (values['keep-polymarket-pool'] && basePolymarketPool === undefined)
  fail('--keep-polymarket-pool: --base has no Polymarket pool to keep')

// ---- stage D alone on --base's stages A–C (fitMain runs it after stage C otherwise)
if (values.base !== undefined && values['polymarket-tapes'] !== undefined) {
  const source = await polymarketSource(values['polymarket-tapes'])
  const poly = await orBadTape(
    fitPolymarket(source, params, log, certaintyPowers, values['polymarket-level-tails']),
  )
  const { pool, book, training } = (values['keep-polymarket-pool'] ? basePolymarketPool : undefined) ?? poly
  // in the order a full fit writes them, so a refit's diff shows only what moved
  const { returnsOnlyPool, ...stagesAC } = params
  params = {
    ...stagesAC,
    venuePools: { polymarket: { ...poly, pool, book, training } },
    ...(returnsOnlyPool === undefined ? {} : { returnsOnlyPool }),
  }
}

// ---- stage R alone on --base's stages A–C, on the readings of --seeds (or --tapes): the base's own
// training data, so the pool refitted is fitted where the one it replaces was
if (values.base !== undefined && values['book-read']) {
  const { obs } = await stageCReadings(await sourceOf(), params)
  params = withBookRead(params, obs)
}

// ---- stage E: the pool of readings priced from one-minute closes alone, on one-minute history
if (values['minute-tapes'] !== undefined) {
  const span =
    values.base === undefined
      ? {}
      : { since: instant('--since', values.since), until: instant('--until', values.until) }
  const minute = await orBadTape(
    fitReturnsOnlyPool(await tapeSource(values['minute-tapes'], span, '--minute-tapes: '), params, log),
  )
  if (typeof minute === 'string') fail(`--minute-tapes: ${minute}`)
  else params = { ...params, returnsOnlyPool: minute }
} else if (values.base !== undefined && values['polymarket-tapes'] === undefined && !values['book-read'])
  fail(
    '--base refits stage D, E or R alone: give --polymarket-tapes DIR[,DIR…], --minute-tapes DIR or --book-read',
  )

const checked = checkModelV2Params(params)
writeFileSync(values.out, `${JSON.stringify(checked, null, 2)}\n`)
// in the repository's own JSON style, so a refit's diff shows only the numbers that moved
spawnSync(join(import.meta.dirname, '..', 'node_modules', '.bin', 'biome'), ['format', '--write', values.out])
log(`wrote ${values.out}: ${modelV2Version(checked)}`)
