// `npm run model:jumps`: a jump term for v2's settlement distribution, measured on the proxy's own
// seconds and judged against the exact referee (docs/model.md, "A jump term from the proxy's
// seconds"). Three steps, in the order a candidate must be made and judged:
//   1. the jump term from the training seeds' closes (observables only: tools/jump-term.ts);
//   2. candidate B from the training outcomes alone: ν and the variance scale with the term in, by
//      log loss on a grid, and Kalshi's pool refitted by stage C's own method (candidate A is the
//      term on top of the shipped file, every other parameter kept);
//   3. the shipped file, A and B — each a parameter file, priced by the model itself — on validation
//      seeds, crowd by crowd: Kalshi in process through the fit's reading step, Polymarket from tapes
//      of the same seeds through the replay's: the expected log loss under the referee, v2's long
//      shots against the referee's expected wins, and the outcomes' log loss paired against the
//      shipped file.
// Nothing is shipped: B's file is written only where --candidate-out names a path. The referee is
// used only to measure.
// Usage: node tools/model-jumps.ts [--train-seeds 1001,…] [--seeds 4004,4005,4006] [--crowds …]
//        [--polymarket-tapes 'ewma=DIR4004,DIR4005,DIR4006;floor=…']: one `sim tape --venue
//        polymarket` set per validation seed, in --seeds' order, a row per crowd
//        [--marker model:jumps --json docs/model-jumps.json] [--candidate-out PATH] [--base FILE]
import { readFileSync, writeFileSync } from 'node:fs'
import type { MinuteClose } from '../src/domain/price-history.ts'
import type { ModelInputs } from '../src/domain/reading-model.ts'
import type { TailRow } from '../src/domain/tail-table.ts'
import { parseSimParams } from '../src/feeds/sim/sim-params-text.ts'
import { createSimPriceFeed } from '../src/feeds/sim/sim-price-feed.ts'
import { type JumpExposure, jumpExposure, probabilityWithJumps } from '../src/model/jumps.ts'
import { V2_PARAMS } from '../src/model/models.ts'
import { checkModelV2Params, type ModelV2Params, modelV2Version } from '../src/model/params.ts'
import {
  type SettlementPricing,
  settlementMeanProbability,
  settlementPricing,
} from '../src/model/settlement-mean-model.ts'
import {
  type CrowdResult,
  type Judged,
  judgeCandidates,
  kalshiSandboxReadings,
  parseTapeSets,
  polymarketTapeReadings,
} from './candidate-judge.ts'
import { type FitObservation, fitBook, fitPool, logLoss } from './fit/stages.ts'
import { type JumpTerm, measureJumps } from './jump-term.ts'
import { replaceBlock } from './model-params-table.ts'
import { DAY_MS, forEachSandboxReading, sandboxWorld } from './sandbox-readings.ts'
import { parseToolArgs } from './tool-args.ts'

const { values } = parseToolArgs(
  'model:jumps',
  'a jump term from the proxy’s seconds, judged against the referee (docs/model.md)',
  {
    options: {
      'train-seeds': { type: 'string', default: '1001,1002,1003,1004,1005,1006,1007,1008' },
      'train-crowds': { type: 'string', default: 'ewma,shrink,drift,ewma-late' },
      'train-from': { type: 'string', default: '2026-06-01' },
      'train-days': { type: 'string', default: '10' },
      seeds: { type: 'string', default: '4004,4005,4006' },
      from: { type: 'string', default: '2026-10-01' },
      days: { type: 'string', default: '4' },
      crowds: { type: 'string', default: 'ewma,shrink,informed,floor' },
      'polymarket-tapes': { type: 'string', default: '' },
      card: { type: 'string', default: 'docs/model.md' },
      json: { type: 'string', default: 'docs/model-jumps.json' },
      marker: { type: 'string', default: 'model:jumps' },
      'candidate-out': { type: 'string', default: '' },
      base: { type: 'string', default: '' },
    },
  },
)
const log = (msg: string) => process.stderr.write(`model:jumps: ${msg}\n`)
const numbers = (text: string): number[] => text.split(',').map(Number)
const day = (text: string): number => Date.parse(`${text}T00:00:00Z`)
const crowdParams = (name: string) => {
  const params = parseSimParams(name)
  if (typeof params === 'string') throw new Error(`crowd ${name}: ${params}`)
  return params
}

const trainSeeds = numbers(values['train-seeds'] as string)
const trainCrowds = (values['train-crowds'] as string).split(',')
const trainSpan = { from: day(values['train-from'] as string), days: Number(values['train-days']) }
// the file the candidates are built on and judged against: the shipped one unless --base names
// another (the second look's was `ed95effd`, the file before the term: see docs/model.md)
const baseFile = values.base as string
const BASE: ModelV2Params =
  baseFile === '' ? V2_PARAMS : checkModelV2Params(JSON.parse(readFileSync(baseFile, 'utf8')))
const ranged = BASE.ranged
const realized = ranged?.variance.realized
if (ranged === undefined || realized === undefined)
  throw new Error(
    'the base file (the shipped one unless --base) has no realised dynamics: nothing to take jumps out of',
  )
const started = Date.now()

// 1. the jump term, from the training closes' seconds
function* trainingCloses(): Generator<Promise<MinuteClose[]>> {
  for (const seed of trainSeeds) {
    const feed = createSimPriceFeed({ seed })
    for (let d = 1; d <= trainSpan.days; d++)
      yield feed.stampedClosesBefore(trainSpan.from + d * DAY_MS, 1440)
  }
}
const closes: MinuteClose[] = []
for (const daysCloses of trainingCloses()) closes.push(...(await daysCloses))
const measured = measureJumps(closes, realized, BASE.sigmaBar)
if (measured === null) throw new Error('no jump over σ̄ in the training closes')
// to four figures, as a parameter file keeps them: every candidate prices the numbers it would ship
const fourFigures = (x: number): number => Number(x.toPrecision(4))
const term: JumpTerm = {
  ...measured,
  perVariance: fourFigures(measured.perVariance),
  laplaceScale: fourFigures(measured.laplaceScale),
}
log(
  `${term.jumps} jumps in ${term.minutes} minutes; Laplace scale ${(term.laplaceScale * 1e4).toFixed(1)} bp; ${term.perVariance.toExponential(3)} per unit variance; ${(term.varianceShare * 100).toFixed(1)} % of the variance`,
)

/** A reading as the candidates price it: the shipped pricing's parts and the jumps' exposure. */
type Priced = { pricing: SettlementPricing; exposure: JumpExposure }
const pricedOf = (inputs: ModelInputs): Priced => {
  const pricing = settlementPricing(inputs, BASE)
  return { pricing, exposure: jumpExposure(inputs, pricing) }
}
const NO_JUMPS = { perVariance: 0, laplaceScale: 1 }
/**
 * The model alone with the term: the diffusion's variance times `factor`, ν as given. Only where the
 * ranged level took the jumps out of the variance it measured; a reading priced from the returns
 * alone counts them in its squared returns already, and is priced as shipped.
 */
const aloneWithJumps = (q: Priced, factor: number, nu: number, jumps: JumpTerm | null): number => {
  const { pricing } = q
  if (!pricing.ranged)
    return probabilityWithJumps(
      pricing.centre,
      Math.sqrt(pricing.variance),
      pricing.params.nu,
      q.exposure,
      NO_JUMPS,
    )
  const sd = Math.sqrt(pricing.diffusionVariance * factor + pricing.basisVariance + pricing.strikeVariance)
  return probabilityWithJumps(pricing.centre, sd, nu, q.exposure, jumps ?? NO_JUMPS)
}

// 2. candidate B from the training outcomes: the readings priced with the ranged dynamics
type TrainingRow = FitObservation & { q: Priced }
const rows: TrainingRow[] = []
/** the first training readings' inputs, to check the scan's arithmetic against the model's own */
const sample: { inputs: ModelInputs; q: Priced }[] = []
for (const [i, seed] of trainSeeds.entries()) {
  const crowd = crowdParams(trainCrowds[i % trainCrowds.length] as string)
  await forEachSandboxReading(sandboxWorld(seed, crowd), trainSpan, (r) => {
    if (r.settledSide === null) return
    const q = pricedOf(r.inputs)
    if (!q.pricing.ranged || !Number.isFinite(q.pricing.centre)) return
    const left = Math.ceil((r.expiresAt - r.at) / 60_000 - 1e-9)
    if (sample.length < 2_000) sample.push({ inputs: r.inputs, q })
    rows.push({
      centre: q.pricing.centre,
      v: 0,
      book: fitBook(r),
      y: r.settledSide === 'up' ? 1 : 0,
      left,
      q,
    })
  })
  log(`training seed ${seed}: ${rows.length} ranged readings so far`)
}
// stage C's own loss (its bound of 1e-4), as the fit scans ν and the scale
const trainingLoss = (p: (q: Priced) => number): number =>
  rows.reduce((sum, r) => sum + logLoss(p(r.q), r.y), 0) / rows.length
const shippedNu = ranged.nu
const withoutTerm = trainingLoss((q) => aloneWithJumps(q, 1, shippedNu, null))
let best = { nu: shippedNu, factor: 1, loss: Number.POSITIVE_INFINITY }
for (const nu of [shippedNu, 10, 14, 20])
  for (const factor of [0.86, 0.9, 0.94, 0.98, 1.02]) {
    const loss = trainingLoss((q) => aloneWithJumps(q, factor, nu, term))
    if (loss < best.loss) best = { nu, factor, loss }
  }
log(
  `training log loss without the term ${withoutTerm.toFixed(6)}; with it, best ν ${best.nu} × ${best.factor}: ${best.loss.toFixed(6)}`,
)
const refitted = fitPool(rows, (o) => aloneWithJumps(o.q, best.factor, best.nu, term), log)

/** The base with the ranged tails' ν, the variance scale times `factor`, and `jumps` priced on top. */
const withTerm = (factor: number, nu: number, jumps: JumpTerm, p: ModelV2Params = BASE): ModelV2Params =>
  checkModelV2Params({
    ...p,
    ranged: {
      ...ranged,
      variance: { ...ranged.variance, scale: ranged.variance.scale * factor },
      nu,
      jumps: { perVariance: jumps.perVariance, laplaceScale: jumps.laplaceScale },
    },
  })
// each candidate is a parameter file the engine would load, priced by the model itself
const CANDIDATES = [
  { name: 'shipped', params: BASE },
  { name: 'A', params: withTerm(1, shippedNu, term) },
  {
    name: 'B',
    params: withTerm(best.factor, best.nu, term, { ...BASE, pool: refitted.pool, book: refitted.book }),
  },
] as const
type Candidate = (typeof CANDIDATES)[number]['name']
// the scan priced B from the shipped pricing's parts; the file B is must price the same
const candidateB = CANDIDATES[2].params
let worst = 0
for (const { inputs, q } of sample) {
  const scanned = aloneWithJumps(q, best.factor, best.nu, term)
  const modelled = settlementMeanProbability(inputs, candidateB).modelAloneUp ?? Number.NaN
  worst = Math.max(worst, Math.abs(scanned - modelled))
}
if (!(worst < 1e-12)) throw new Error(`B's file prices ${worst} away from the scan that chose it`)
log(
  `B is \`${modelV2Version(candidateB)}\` (its file within ${worst.toExponential(1)} of the scan on ${sample.length} readings)`,
)
const candidateOut = values['candidate-out'] as string
if (candidateOut !== '') {
  writeFileSync(candidateOut, `${JSON.stringify(candidateB, null, 2)}\n`)
  log(`wrote B's parameter file to ${candidateOut}`)
}

// 3. on validation seeds, crowd by crowd, and on Polymarket tapes of the same seeds
async function judge(
  label: string,
  readings: (each: (r: Judged) => void) => Promise<void>,
): Promise<CrowdResult> {
  const result = await judgeCandidates(label, CANDIDATES, readings)
  log(`${label}: ${result.readings} readings judged`)
  return result
}

const valSpan = { from: day(values.from as string), days: Number(values.days) }
const valSeeds = numbers(values.seeds as string)
const results: CrowdResult[] = []
for (const crowdName of (values.crowds as string).split(',')) {
  const crowd = crowdParams(crowdName)
  results.push(await judge(crowdName, kalshiSandboxReadings(valSeeds, crowd, valSpan)))
}

// Polymarket's readings come through its tapes and the replay's reading step (sim tape --venue
// polymarket of each validation seed), judged by that venue's own rule (candidate-judge.ts)
const polymarket: CrowdResult[] = []
for (const { crowd, tapes } of parseTapeSets(values['polymarket-tapes'] as string)) {
  if (tapes.length > valSeeds.length)
    throw new Error(`--polymarket-tapes ${crowd}: more tape sets than --seeds has seeds`)
  polymarket.push(await judge(`Polymarket · ${crowd}`, polymarketTapeReadings(tapes, valSeeds)))
}

const ratio = (row: TailRow | null | undefined): string => (row?.ratio == null ? '–' : row.ratio.toFixed(3))
const e4 = (x: number): string => (x * 1e4).toFixed(2)
const e5 = (m: { value: number; se: number | null } | null | undefined): string =>
  m
    ? `${m.value >= 0 ? '+' : '−'}${Math.abs(m.value * 1e5).toFixed(1)} ± ${((m.se ?? Number.NaN) * 1e5).toFixed(1)}`
    : '–'
const names = CANDIDATES.map((c) => c.name)
const rowOf = (label: string, cells: CrowdResult['cells'], kind: 'v2' | 'alone'): string => {
  const cell = (n: Candidate) => cells[`${n} ${kind}`]
  return `| ${label} | ${names.map((n) => e4(cell(n)?.excess ?? Number.NaN)).join(' · ')} | ${names
    .map((n) => `${ratio(cell(n)?.shots[0])} / ${ratio(cell(n)?.shots[1])}`)
    .join(' · ')} | ${names
    .filter((n) => n !== 'shipped')
    .map((n) => e5(cell(n)?.outcomes))
    .join(' · ')} |`
}
const table = [
  `The jump term: ${term.jumps} jumps over σ̄ in ${term.minutes} training minutes (seeds ${trainSeeds.join(', ')}, ${trainSpan.days} days each from ${values['train-from']}), Laplace scale ${(term.laplaceScale * 1e4).toFixed(1)} bp, ${term.perVariance.toExponential(2)} per unit of diffusive variance, ${(term.varianceShare * 100).toFixed(1)} % of the variance. “Shipped” is \`${modelV2Version(BASE)}\`${baseFile === '' ? '' : ' (--base)'}; candidate A: the term on it; B: ν ${best.nu}, scale × ${best.factor} (training log loss ${best.loss.toFixed(6)} against ${withoutTerm.toFixed(6)} without the term) and Kalshi's pool refitted on ${rows.length} training readings. Validation seeds ${valSeeds.join(', ')}, ${valSpan.days} days each from ${values.from}, Kalshi in process, ${results[0]?.readings ?? 0} readings a crowd${polymarket.length > 0 ? `; Polymarket on tapes of the same seeds and days (\`sim tape --venue polymarket\`, ${polymarket.map((r) => `\`${r.crowd.replace('Polymarket · ', '')}\``).join(' and ')}) through the replay's reading step, priced by its own pool (A and B change only the model alone there)` : ''}; about ${Math.max(1, Math.round((Date.now() - started) / 60_000))} min.`,
  '',
  '| crowd | expected log loss above the referee, 10⁻⁴ a reading: shipped · A · B | v2’s 0.5–2 % / 2–5 % against the referee: shipped · A · B | outcomes’ log loss − shipped, 10⁻⁵ a reading: A · B |',
  '|---|---|---|---|',
  ...results.map((r) => rowOf(`\`${r.crowd}\``, r.cells, 'v2')),
  rowOf('Kalshi, the model alone (any crowd)', results[0]?.cells ?? {}, 'alone'),
  ...polymarket.map((r) =>
    rowOf(`Polymarket · \`${r.crowd.replace('Polymarket · ', '')}\` (${r.readings} readings)`, r.cells, 'v2'),
  ),
  ...(polymarket[0]
    ? [
        rowOf(
          `Polymarket, the model alone${polymarket.length > 1 ? ` (${polymarket[0].crowd.replace('Polymarket · ', '')}’s readings)` : ''}`,
          polymarket[0].cells,
          'alone',
        ),
      ]
    : []),
].join('\n')

writeFileSync(
  values.json as string,
  `${JSON.stringify({ version: modelV2Version(BASE), term, candidateB: { version: modelV2Version(candidateB), ...best, pool: refitted.pool, book: refitted.book }, results: [...results, ...polymarket].map((r) => ({ crowd: r.crowd, readings: r.readings, cells: Object.fromEntries(Object.entries(r.cells).map(([k, c]) => [k, { excess: c.excess, shots: c.shots.map((s) => (s ? { ratio: s.ratio, ratioSe: s.ratioSe, claimed: s.claimed } : null)), outcomes: c.outcomes }])) })) }, null, 2)}\n`,
)
const card = values.card as string
writeFileSync(card, replaceBlock(readFileSync(card, 'utf8'), values.marker as string, table, card))
log(`wrote ${card} and ${values.json}`)
