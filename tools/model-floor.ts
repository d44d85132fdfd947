// `npm run model:floor`: how much of the gap between v2 and the exact referee is information the
// engine cannot see (docs/model.md, "What the proxy cannot know"). The referee knows the settlement
// index itself; the engine knows the exchanges' proxy, which sits off the index by a basis that moves
// minute to minute and is sampled only at each strike. On the held-out card's seeds and days, each
// reading the engine would make (the fit's reading step: what a live engine observes) is priced by
// v1, by v2 as published and alone, and — diagnostics only, never a model — by v2 given the hidden
// index print as its spot (priced as a keyed Kalshi reading is, on the index with no basis), and by
// the referee on the proxy: the exact referee told everything but the index, which it sees where the
// engine puts it and doubts by that estimate's error law on the seed. What is left between v2 on
// the index and the referee is the model's own; what the referee on the proxy leaves is what no
// model reading the index from the proxy could close. The crowd quotes from the index, so its book
// says a little more: v2 and the referee on the proxy each also read the index from the book by
// Bayes' rule (book-index-read.ts), through the crowd's map fitted on the seed's own mids and prices
// (observables only). Each by outcomes and by expectation (the
// referee's probability in the outcome's place). No model parameter is fitted here: v2 prices with
// the shipped file, and only the crowd's map, a part of the diagnostic, is fitted on observables.
// Usage: node tools/model-floor.ts [--seeds 2001,2002,2003] [--from 2026-09-01] [--days 30]
//        [--card docs/model.md] [--json docs/model-floor.json]
import { readFileSync, writeFileSync } from 'node:fs'
import { MINUTE_MS } from '../src/domain/contest.ts'
import { gbmEwma1Model } from '../src/domain/model.ts'
import { clusteredMean, clusteredRatio, type Estimate, logLossOf, ratioSumsOf } from '../src/domain/scores.ts'
import { createSimOracle } from '../src/feeds/sim/oracle.ts'
import { estimateBasis } from '../src/model/basis.ts'
import { bookStateOf } from '../src/model/book-pool.ts'
import { ERROR_NODES, ERROR_WEIGHTS } from '../src/model/index-read.ts'
import { V2_PARAMS } from '../src/model/models.ts'
import { modelV2Version } from '../src/model/params.ts'
import {
  basisOptionsOf,
  pooledWithBook,
  settlementMeanAloneAt,
  settlementMeanProbability,
  settlementPricing,
} from '../src/model/settlement-mean-model.ts'
import {
  crowdMapsOf,
  type ErrorGrid,
  gridErrors,
  logitAt,
  posteriorWeights,
  readableMid,
} from './book-index-read.ts'
import {
  type BOOK_READS,
  type Closer,
  floorTable,
  PRICINGS,
  type Pricing,
  pct,
  type SeedFloor,
} from './floor-table.ts'
import { replaceBlock } from './model-params-table.ts'
import { CARD_SPAN_OPTIONS, forEachSandboxReading, sandboxWorld } from './sandbox-readings.ts'
import { parseToolArgs } from './tool-args.ts'

const { values } = parseToolArgs(
  'model:floor',
  'v1 and v2 against the exact referee, and what the proxy’s basis costs (docs/model.md)',
  {
    options: {
      ...CARD_SPAN_OPTIONS,
      card: { type: 'string', default: 'docs/model.md' },
      json: { type: 'string', default: 'docs/model-floor.json' },
    },
  },
)
const log = (msg: string) => process.stderr.write(`model:floor: ${msg}\n`)

/** The share of b's excess over the same readings that a closes, 1 − Σa/Σb, ± SE clustered by contest. */
function shareClosed(a: readonly number[], b: readonly number[], contests: readonly string[]): Estimate {
  const ratio = clusteredRatio(ratioSumsOf(a, b, contests))
  return { value: 1 - ratio.value, se: ratio.se }
}

/** The pricings made as each reading is read; the rest wait for the error's law and the crowd's map. */
type ReadingPricing = Exclude<Pricing, 'the referee on the proxy' | (typeof BOOK_READS)[number]>

/** The index error hypotheses each reading is priced at: ±2.5 bp in steps of 0.125 bp. */
const ERROR_GRID: ErrorGrid = { step: 0.125e-4, half: 20 }

type Row = {
  ticker: string
  at: number
  y: number
  referee: number
  indexError: number
  priced: Record<ReadingPricing, number>
  /** v2 alone on the index at each of ERROR_GRID's error hypotheses */
  grid: number[]
  /** sd of v2's own doubt about its index (its basis variance): the prior it reads the book against */
  doubt: number
  minutesLeft: number
  mid: number | null
  /** v2's pool with the book, given the model's P(up) */
  pool: (modelUp: number) => number
}

async function floorOf(seed: number, from: number, days: number): Promise<SeedFloor> {
  const world = sandboxWorld(seed)
  const oracle = createSimOracle({ seed })
  const rows: Row[] = []
  await forEachSandboxReading(world, { from, days }, (r) => {
    if (r.settledSide === null) return
    const v2 = settlementMeanProbability(r.inputs, V2_PARAMS)
    const onIndex = settlementMeanProbability(
      { ...r.inputs, spotIsIndex: true, spotDollars: oracle.indexAt(r.inputs.spotObservedAt) },
      V2_PARAMS,
    )
    // where the engine puts the index: its spot less its basis estimate, as v2 prices it
    const basis = estimateBasis(
      r.inputs.basisSamples,
      r.inputs.spotObservedAt,
      basisOptionsOf(r.inputs, V2_PARAMS),
    )
    const index = r.inputs.spotDollars - basis
    const priced = settlementPricing(r.inputs, V2_PARAMS)
    const msLeft = r.inputs.expiresAt - r.inputs.spotObservedAt
    rows.push({
      ticker: r.ticker,
      at: r.at,
      y: r.settledSide === 'up' ? 1 : 0,
      referee: oracle.probabilityYes(r.ticker, r.at),
      indexError: Math.log(index / oracle.indexAt(r.at)),
      priced: {
        v1: gbmEwma1Model.probabilityUp(r.inputs).probabilityUp,
        v2: v2.probabilityUp,
        'v2 alone': v2.modelAloneUp ?? v2.probabilityUp,
        'v2 on the index': onIndex.probabilityUp,
        'v2 alone on the index': onIndex.modelAloneUp ?? onIndex.probabilityUp,
      },
      // an error x puts the index at the engine's estimate times e^−x
      grid: settlementMeanAloneAt(
        { ...r.inputs, spotIsIndex: true },
        V2_PARAMS,
        gridErrors(ERROR_GRID).map((x) => index * Math.exp(-x)),
      ) as number[],
      doubt: Math.sqrt(priced.basisVariance),
      minutesLeft: Math.ceil(msLeft / MINUTE_MS - 1e-9),
      mid: readableMid(bookStateOf(r.inputs), msLeft),
      pool: (up) => pooledWithBook(r.inputs, V2_PARAMS, priced, up),
    })
  })
  const errors = rows.map((r) => r.indexError)
  const mean = errors.reduce((a, e) => a + e, 0) / errors.length
  const sd = Math.sqrt(errors.reduce((a, e) => a + (e - mean) ** 2, 0) / errors.length)
  const diffs: Record<Pricing, number[]> = Object.fromEntries(PRICINGS.map((k) => [k, []])) as never
  const kls: Record<Pricing, number[]> = Object.fromEntries(PRICINGS.map((k) => [k, []])) as never
  const contests: string[] = []
  // v2's own hypotheses of its index error: its doubt's Gauss–Hermite nodes
  const ownLogits = (r: Row) => ERROR_NODES.map((z) => logitAt(ERROR_GRID, r.grid, r.doubt * z))
  const maps = crowdMapsOf(rows, ERROR_WEIGHTS, ownLogits)
  const lawErrors = ERROR_NODES.map((z) => mean + sd * z)
  for (const r of rows) {
    const map = maps.get(r.minutesLeft) ?? null
    // the referee not knowing the index: it sees it where the engine puts it, off by e^indexError,
    // and doubts that by the error's law (a diagnostic of the information, never a model)
    const scaled = lawErrors.map((x) => oracle.probabilityYesScaled(r.ticker, r.at, r.indexError - x))
    const onProxy = scaled.reduce((sum, p, i) => sum + (ERROR_WEIGHTS[i] as number) * p, 0)
    // and each also reading the book: the hypotheses weighed by the mid's likelihood under the map
    const lawSeen = posteriorWeights(
      ERROR_WEIGHTS,
      lawErrors.map((x) => logitAt(ERROR_GRID, r.grid, x)),
      r.mid,
      map,
    )
    const onProxyAndBook = scaled.reduce((sum, p, i) => sum + (lawSeen[i] as number) * p, 0)
    const own = ownLogits(r)
    const ownSeen = posteriorWeights(ERROR_WEIGHTS, own, r.mid, map)
    const read = own.reduce((sum, l, i) => sum + (ownSeen[i] as number) / (1 + Math.exp(-l)), 0)
    const later: Record<Exclude<Pricing, ReadingPricing>, number> = {
      'the referee on the proxy': onProxy,
      'v2 reading the index from the book': r.pool(read),
      'the referee on the proxy and the book': onProxyAndBook,
    }
    const referee = logLossOf(r.referee, r.y)
    const entropy = logLossOf(r.referee, r.referee)
    for (const k of PRICINGS) {
      const p = k in later ? later[k as keyof typeof later] : r.priced[k as ReadingPricing]
      diffs[k].push(logLossOf(p, r.y) - referee)
      kls[k].push(logLossOf(p, r.referee) - entropy)
    }
    contests.push(r.ticker)
  }
  const means = (of: Record<Pricing, number[]>) =>
    Object.fromEntries(PRICINGS.map((k) => [k, clusteredMean(of[k], contests)])) as Record<Pricing, Estimate>
  const closers = PRICINGS.filter((k): k is Closer => k !== 'v1')
  const sharesOf = (of: Record<Pricing, number[]>) =>
    Object.fromEntries(closers.map((k) => [k, shareClosed(of[k], of.v1, contests)])) as Record<
      Closer,
      Estimate
    >
  // the referee's log loss cancels in each pairing
  const paired = (a: Pricing, b: Pricing, of = diffs) =>
    clusteredMean(
      of[a].map((d, i) => d - (of[b][i] as number)),
      contests,
    )
  return {
    seed,
    readings: contests.length,
    contests: new Set(contests).size,
    indexError: { mean, sd },
    excess: means(diffs),
    expected: means(kls),
    proxyCost: paired('v2', 'v2 on the index'),
    againstProxyReferee: paired('v2', 'the referee on the proxy'),
    bookRead: {
      outcomes: paired('v2 reading the index from the book', 'v2'),
      expected: paired('v2 reading the index from the book', 'v2', kls),
    },
    closed: sharesOf(diffs),
    closedExpected: sharesOf(kls),
  }
}

const seeds = (values.seeds as string).split(',').map(Number)
const from = Date.parse(`${values.from}T00:00:00Z`)
const days = Number(values.days)
const started = Date.now()
const floors: SeedFloor[] = []
for (const seed of seeds) {
  floors.push(await floorOf(seed, from, days))
  const f = floors.at(-1) as SeedFloor
  log(
    `seed ${seed}: v1's gap closed by outcomes / by expectation: v2 ${pct(f.closed.v2)} / ${pct(f.closedExpected.v2)}, the referee on the proxy ${pct(f.closed['the referee on the proxy'])} / ${pct(f.closedExpected['the referee on the proxy'])}; reading the book: v2 ${pct(f.closed['v2 reading the index from the book'])} / ${pct(f.closedExpected['v2 reading the index from the book'])}, the referee on the proxy ${pct(f.closed['the referee on the proxy and the book'])} / ${pct(f.closedExpected['the referee on the proxy and the book'])}`,
  )
}
const wallS = (Date.now() - started) / 1000
writeFileSync(
  values.json as string,
  `${JSON.stringify({ version: modelV2Version(V2_PARAMS), floors }, null, 2)}\n`,
)
const card = values.card as string
writeFileSync(
  card,
  replaceBlock(
    readFileSync(card, 'utf8'),
    'model:floor',
    floorTable(floors, {
      from: values.from as string,
      days,
      minutes: Math.round(wallS / 60),
      version: modelV2Version(V2_PARAMS),
    }),
    card,
  ),
)
log(`wrote ${card} and ${values.json}`)
