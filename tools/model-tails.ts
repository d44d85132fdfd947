// `npm run model:tails`: where v2's long shots stand against the exact referee's, without the
// outcomes' luck (docs/model.md, "The long shots against the referee"). A tail table's realised/claimed
// on a few dozen claimed wins has an SE of 0.2–0.35, so a model 20 % too sure and one that is right
// both pass or fail on the paths' luck. Here the referee's probability stands in for the outcome: the
// table's "realised" is then the referee's expected wins on the same readings, and realised/claimed is
// how much more (above 1) or less often the long shot comes in than v2 says, by the sandbox's own law.
// Each reading the engine would make on the card's seeds and days (the fit's reading step), priced by
// v2 as published and alone. Nothing here is fitted: the parameters are the shipped ones.
// Usage: node tools/model-tails.ts [--seeds 2001,2002,2003] [--from 2026-09-01] [--days 30]
//        [--card docs/model.md] [--json docs/model-tails.json]
import { readFileSync, writeFileSync } from 'node:fs'
import { minutesLeftOf } from '../src/domain/graded-reading.ts'
import type { ScoredPoint } from '../src/domain/scores.ts'
import { pooledTailRow, type TailRow, tailRatioText, tailTable } from '../src/domain/tail-table.ts'
import { createSimOracle } from '../src/feeds/sim/oracle.ts'
import { V2_PARAMS } from '../src/model/models.ts'
import { modelV2Version } from '../src/model/params.ts'
import { settlementMeanProbability } from '../src/model/settlement-mean-model.ts'
import { replaceBlock } from './model-params-table.ts'
import { CARD_SPAN_OPTIONS, forEachSandboxReading, sandboxWorld } from './sandbox-readings.ts'
import { parseToolArgs } from './tool-args.ts'

const { values } = parseToolArgs(
  'model:tails',
  'v2’s long shots against the exact referee’s probability (docs/model.md)',
  {
    options: {
      ...CARD_SPAN_OPTIONS,
      card: { type: 'string', default: 'docs/model.md' },
      json: { type: 'string', default: 'docs/model-tails.json' },
    },
  },
)
const log = (msg: string) => process.stderr.write(`model:tails: ${msg}\n`)

const PRICINGS = ['v2', 'v2 alone'] as const
type Pricing = (typeof PRICINGS)[number]
/** minutes left, as the pool's buckets group them; `all` every reading */
const GROUPS = [
  { label: 'all', from: 1, to: 14 },
  { label: '1', from: 1, to: 1 },
  { label: '2', from: 2, to: 2 },
  { label: '3–7', from: 3, to: 7 },
  { label: '8–14', from: 8, to: 14 },
] as const
/** the long-shot buckets shown, each side's pooled with its mirror (2–5 % up with 95–98 %) */
const SHOWN = [
  { label: '0.5–2 %', sides: ['0.5–2 %', '98–99.5 %'] },
  { label: '2–5 %', sides: ['2–5 %', '95–98 %'] },
] as const

type Point = ScoredPoint & { left: number }

const seeds = (values.seeds as string).split(',').map(Number)
const from = Date.parse(`${values.from}T00:00:00Z`)
const days = Number(values.days)
const started = Date.now()
const points: Record<Pricing, Point[]> = { v2: [], 'v2 alone': [] }
for (const seed of seeds) {
  const oracle = createSimOracle({ seed })
  await forEachSandboxReading(sandboxWorld(seed), { from, days }, (r) => {
    if (r.settledSide === null) return
    // the referee's probability in the outcome's place: the table's expectation under the sandbox's law
    const y = oracle.probabilityYes(r.ticker, r.at)
    const out = settlementMeanProbability(r.inputs, V2_PARAMS)
    const left = minutesLeftOf(r)
    const contest = `${seed}:${r.ticker}`
    points.v2.push({ contest, y, p: out.probabilityUp, left })
    points['v2 alone'].push({ contest, y, p: out.modelAloneUp ?? out.probabilityUp, left })
  })
  log(`seed ${seed}: ${points.v2.length} readings so far`)
}
const wallS = (Date.now() - started) / 1000

type Cell = { group: string; bucket: string; pricing: Pricing; row: TailRow | null }
const cells: Cell[] = []
for (const g of GROUPS)
  for (const pricing of PRICINGS) {
    const table = tailTable(points[pricing].filter((p) => p.left >= g.from && p.left <= g.to))
    for (const b of SHOWN)
      cells.push({
        group: g.label,
        bucket: b.label,
        pricing,
        row: pooledTailRow(table.filter((r) => (b.sides as readonly string[]).includes(r.label))),
      })
  }

const cellText = (row: TailRow | null): string =>
  row && row.claimed > 0 ? `${tailRatioText(row)} (${row.claimed.toFixed(1)})` : '–'

function table(): string {
  const columns = PRICINGS.flatMap((pricing) => SHOWN.map((b) => ({ pricing, bucket: b.label })))
  const lines = [
    `Seeds ${seeds.join(', ')}, ${days} days each from ${values.from}, \`ewma\` crowd; v2 = \`${modelV2Version(V2_PARAMS)}\`; ${points.v2.length} readings through the engine's reading step. Each cell: the exact referee's expected long-shot wins over v2's claimed ones on the same readings (above 1: v2 too sure) ± one SE clustered by contest, and v2's claimed wins in brackets; a bucket is pooled with its mirror. About ${Math.max(1, Math.round(wallS / 60))} min on one core.`,
    '',
    `| minutes left | ${columns.map((c) => `${c.pricing}, ${c.bucket}`).join(' | ')} |`,
    `|---|${columns.map(() => '---').join('|')}|`,
  ]
  for (const g of GROUPS)
    lines.push(
      `| ${g.label} | ${columns
        .map((c) =>
          cellText(
            cells.find((x) => x.group === g.label && x.bucket === c.bucket && x.pricing === c.pricing)?.row ??
              null,
          ),
        )
        .join(' | ')} |`,
    )
  return lines.join('\n')
}

writeFileSync(
  values.json as string,
  `${JSON.stringify({ version: modelV2Version(V2_PARAMS), seeds, from: values.from, days, cells }, null, 2)}\n`,
)
const card = values.card as string
writeFileSync(card, replaceBlock(readFileSync(card, 'utf8'), 'model:tails', table(), card))
log(`wrote ${card} and ${values.json}`)
