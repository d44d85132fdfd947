// `npm run model:floor`: how much of the gap between v2 and the exact referee is information the
// engine cannot see (docs/model.md, "What the proxy cannot know"). The referee knows the settlement
// index itself; the engine knows the exchanges' proxy, which sits off the index by a basis that moves
// minute to minute and is sampled only at each strike. On the held-out card's seeds and days, each
// reading the engine would make (the fit's reading step: what a live engine observes) is priced by
// v1, by v2 as published and alone, and — a diagnostic only, never a model — by v2 given the hidden
// index print as its spot (priced as a keyed Kalshi reading is, on the index with no basis). What is
// left between that and the referee is the model's own; the rest of v2's gap is the proxy's.
// Nothing here is fitted: the parameters are the shipped ones.
// Usage: node tools/model-floor.ts [--seeds 2001,2002,2003] [--from 2026-09-01] [--days 30]
//        [--card docs/model.md] [--json docs/model-floor.json]
import { readFileSync, writeFileSync } from 'node:fs'
import { gbmEwma1Model } from '../src/domain/model.ts'
import { clusteredMean, clusteredRatio, type Estimate, logLossOf, ratioSumsOf } from '../src/domain/scores.ts'
import { createSimOracle } from '../src/feeds/sim/oracle.ts'
import { V2_PARAMS } from '../src/model/models.ts'
import { modelV2Version } from '../src/model/params.ts'
import { settlementMeanProbability } from '../src/model/settlement-mean-model.ts'
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

/** Log loss minus the referee's on the same readings, per pricing. */
const PRICINGS = ['v1', 'v2', 'v2 alone', 'v2 on the index', 'v2 alone on the index'] as const
type Pricing = (typeof PRICINGS)[number]

type SeedFloor = {
  seed: number
  readings: number
  contests: number
  /** mean log loss − the referee's, SE clustered by contest */
  excess: Record<Pricing, Estimate>
  /** v2 − v2 on the index, paired: what the proxy's basis costs v2 */
  proxyCost: Estimate
  /** the share of v1's excess v2 closes, and the share v2 on the index would, ± SE clustered by contest */
  gapClosed: Estimate
  gapClosedOnIndex: Estimate
}

/** The share of b's excess over the same readings that a closes, 1 − Σa/Σb, ± SE clustered by contest. */
function shareClosed(a: readonly number[], b: readonly number[], contests: readonly string[]): Estimate {
  const ratio = clusteredRatio(ratioSumsOf(a, b, contests))
  return { value: 1 - ratio.value, se: ratio.se }
}

async function floorOf(seed: number, from: number, days: number): Promise<SeedFloor> {
  const world = sandboxWorld(seed)
  const oracle = createSimOracle({ seed })
  const diffs: Record<Pricing, number[]> = Object.fromEntries(PRICINGS.map((k) => [k, []])) as never
  const contests: string[] = []
  await forEachSandboxReading(world, { from, days }, (r) => {
    if (r.settledSide === null) return
    const y = r.settledSide === 'up' ? 1 : 0
    const referee = logLossOf(oracle.probabilityYes(r.ticker, r.at), y)
    const v2 = settlementMeanProbability(r.inputs, V2_PARAMS)
    const onIndex = settlementMeanProbability(
      { ...r.inputs, spotIsIndex: true, spotDollars: oracle.indexAt(r.inputs.spotObservedAt) },
      V2_PARAMS,
    )
    const priced: Record<Pricing, number> = {
      v1: gbmEwma1Model.probabilityUp(r.inputs).probabilityUp,
      v2: v2.probabilityUp,
      'v2 alone': v2.modelAloneUp ?? v2.probabilityUp,
      'v2 on the index': onIndex.probabilityUp,
      'v2 alone on the index': onIndex.modelAloneUp ?? onIndex.probabilityUp,
    }
    for (const k of PRICINGS) diffs[k].push(logLossOf(priced[k], y) - referee)
    contests.push(r.ticker)
  })
  const excess = Object.fromEntries(PRICINGS.map((k) => [k, clusteredMean(diffs[k], contests)])) as Record<
    Pricing,
    Estimate
  >
  return {
    seed,
    readings: contests.length,
    contests: new Set(contests).size,
    excess,
    // the referee's log loss cancels in the pairing
    proxyCost: clusteredMean(
      diffs.v2.map((d, i) => d - (diffs['v2 on the index'][i] as number)),
      contests,
    ),
    gapClosed: shareClosed(diffs.v2, diffs.v1, contests),
    gapClosedOnIndex: shareClosed(diffs['v2 on the index'], diffs.v1, contests),
  }
}

const pm = (e: Estimate, digits = 4): string => {
  const v = `${e.value >= 0 ? '+' : '−'}${Math.abs(e.value).toFixed(digits)}`
  return e.se === null ? v : `${v} ± ${e.se.toFixed(digits)}`
}
const pct = (e: Estimate): string =>
  `${(100 * e.value).toFixed(1)}${e.se === null ? '' : ` ± ${(100 * e.se).toFixed(1)}`} %`

function table(floors: SeedFloor[], from: string, days: number, wallS: number): string {
  const lines = [
    `Held-out seeds ${floors.map((f) => f.seed).join(', ')}, ${days} days each from ${from} (the card's days), \`ewma\` crowd; v2 = \`${modelV2Version(V2_PARAMS)}\`. Each reading the engine would make, priced in process (the fit's reading step, not a replay: within a few tenths of a point of the card's figures). Mean log loss − the exact referee's on the same readings, ± one SE clustered by contest. About ${Math.round(wallS / 60)} min on one core.`,
    '',
    `| seed | readings | v1 | v2 | v2 alone | v2 on the index | v2 alone on the index | proxy's cost (v2 − v2 on the index) | v1's gap closed | v1's gap closed on the index |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  ]
  for (const f of floors)
    lines.push(
      `| ${f.seed} | ${f.readings} | ${PRICINGS.map((k) => pm(f.excess[k])).join(' | ')} | ${pm(f.proxyCost)} | ${pct(f.gapClosed)} | ${pct(f.gapClosedOnIndex)} |`,
    )
  return lines.join('\n')
}

const seeds = (values.seeds as string).split(',').map(Number)
const from = Date.parse(`${values.from}T00:00:00Z`)
const days = Number(values.days)
const started = Date.now()
const floors: SeedFloor[] = []
for (const seed of seeds) {
  floors.push(await floorOf(seed, from, days))
  const f = floors.at(-1) as SeedFloor
  log(`seed ${seed}: gap closed ${pct(f.gapClosed)}, on the index ${pct(f.gapClosedOnIndex)}`)
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
    table(floors, values.from as string, days, wallS),
    card,
  ),
)
log(`wrote ${card} and ${values.json}`)
