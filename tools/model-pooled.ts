// `npm run model:pooled`: every held-out sandbox look the model card keeps, pooled by venue and crowd.
// Each card alone judges its far-tail buckets on 20–40 claimed long-shot wins, where realised/claimed
// has a standard error of 0.2–0.35 and the exact referee's own ratio on the same readings falls
// outside the gate's [0.8, 1.25] as often as v2's (docs/model.md, "Limits"). The looks were made on
// disjoint paths (other seeds; the 30-day `shrink` run replaces the card's 10 days it contains), so
// their sums add: the tail rows' per-contest sums pool exactly (clustered SE recomputed), and v1's
// gap to the referee is summed reading-weighted. It reads the committed JSON only: nothing is run,
// priced or fitted. The pooling was chosen after the single cards had been read; they stand as they are.
// Usage: node tools/model-pooled.ts [--card docs/model.md] [--print]
import { readFileSync, writeFileSync } from 'node:fs'
import { type TailRow, tailRatioText } from '../src/domain/tail-table.ts'
import { type CardTailRow, pooledCardTail, pooledTailText } from './card-tails.ts'
import { replaceBlock } from './model-params-table.ts'
import { parseToolArgs } from './tool-args.ts'

/** One seed of one look, as the pooling needs it. */
type SeedLook = {
  seed: number
  readings: number
  /** log loss of v1, v2 and the exact referee on the same readings */
  v1: number
  v2: number
  oracle: number
  tails: CardTailRow[]
  oracleTails: CardTailRow[] | null
  /** v2's tail table with the referee's probability in each outcome's place, where the look kept it */
  refereeOnV2: CardTailRow[] | null
}

/** `version`: the v2 the look judged */
type Look = { name: string; crowd: string; version: string; seeds: SeedLook[] }

type KalshiCard = {
  figures: Array<{
    seed: number
    v1: { readings: number; logLoss: { value: number } }
    v2: {
      version: string
      readings: number
      logLoss: { value: number }
      oracle: { logLoss: number }
      tails: CardTailRow[]
    }
  }>
}

type SweepRow = {
  preset: string
  seed: number
  v2Version: string
  readings: number
  logLoss: { v1: number; v2: number; oracleV2: number | null }
  tails: CardTailRow[]
  oracleTails?: CardTailRow[]
  refereeOnV2Tails?: CardTailRow[]
}

function fail(message: string): never {
  process.stderr.write(`model:pooled: ${message}\n`)
  process.exit(1)
}

function readJson<T>(file: string): T {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T
  } catch (err) {
    fail(`cannot read ${file}: ${(err as Error).message}`)
  }
}

/** The one v2 version a look's seeds name. */
function versionOf(versions: readonly string[], file: string): string {
  const one = [...new Set(versions)]
  if (one.length !== 1) fail(`${file} names ${one.length} v2 versions (${one.join(', ')})`)
  return one[0]!
}

function kalshiCard(file: string): Look {
  const card = readJson<KalshiCard>(file)
  return {
    name: 'card',
    crowd: 'ewma',
    version: versionOf(
      card.figures.map((f) => f.v2.version),
      file,
    ),
    seeds: card.figures.map((f) => ({
      seed: f.seed,
      readings: f.v2.readings,
      v1: f.v1.logLoss.value,
      v2: f.v2.logLoss.value,
      oracle: f.v2.oracle.logLoss,
      tails: f.v2.tails,
      oracleTails: null,
      refereeOnV2: null,
    })),
  }
}

/** A sweep's JSON, one look per crowd in it (`only` keeps those crowds). */
function sweepLooks(name: string, file: string, only?: readonly string[]): Look[] {
  const rows = readJson<SweepRow[]>(file)
  const crowds = [...new Set(rows.map((r) => r.preset))].filter((c) => !only || only.includes(c))
  return crowds.map((crowd) => {
    const mine = rows.filter((r) => r.preset === crowd)
    return {
      name,
      crowd,
      version: versionOf(
        mine.map((r) => r.v2Version),
        file,
      ),
      seeds: mine.map((r) => ({
        seed: r.seed,
        readings: r.readings,
        v1: r.logLoss.v1,
        v2: r.logLoss.v2,
        oracle: r.logLoss.oracleV2 ?? fail(`${file} has no referee log loss for ${crowd} seed ${r.seed}`),
        tails: r.tails,
        oracleTails: r.oracleTails ?? null,
        refereeOnV2: r.refereeOnV2Tails ?? null,
      })),
    }
  })
}

/** Which committed looks pool together: disjoint paths only. */
function venueLooks(): { venue: string; looks: Look[] }[] {
  return [
    {
      venue: 'Kalshi',
      looks: [kalshiCard('docs/model-card.json'), ...sweepLooks('fresh', 'docs/model-card-fresh.json')],
    },
    {
      venue: 'Polymarket',
      looks: [
        // the 30-day `shrink` look holds the card's 10 days of `shrink`, so it stands in for them
        ...sweepLooks('card', 'docs/model-card-polymarket.json', ['ewma', 'floor']),
        ...sweepLooks('30 days', 'docs/model-card-polymarket-shrink30.json'),
        ...sweepLooks('fresh', 'docs/model-card-polymarket-fresh.json'),
        ...sweepLooks('fresh', 'docs/model-card-polymarket-fresh-floor.json'),
        ...sweepLooks('fourth', 'docs/model-card-polymarket-fourth.json'),
        ...sweepLooks('fifth', 'docs/model-card-polymarket-fifth.json'),
      ],
    },
  ]
}

const GATE = { low: 0.8, high: 1.25, minClaimed: 20 }
const BUCKETS = ['0.5–2 % up', '2–5 % up', '95–98 % down', '98–99.5 % down'] as const

/** Share of v1's gap to the referee that v2 closes, summed reading-weighted over seeds. */
export function gapClosed(seeds: readonly Pick<SeedLook, 'readings' | 'v1' | 'v2' | 'oracle'>[]): number {
  const closed = seeds.reduce((s, x) => s + x.readings * (x.v1 - x.v2), 0)
  const gap = seeds.reduce((s, x) => s + x.readings * (x.v1 - x.oracle), 0)
  return closed / gap
}

function lookLabel(look: Look): string {
  const seeds = look.seeds.map((s) => s.seed)
  const hash = look.version.replace(/^.*\./, '')
  return `${look.name} (${Math.min(...seeds)}–${Math.max(...seeds)}; \`${hash}\`)`
}

/** One look's bucket: "claimed → realised (ratio)". */
function lookCell(row: TailRow | null): string {
  if (!row || !(row.claimed > 0)) return '–'
  return `${row.claimed.toFixed(1)} → ${row.realised} (${row.ratio!.toFixed(2)})`
}

function verdict(row: TailRow | null): string {
  if (!row || row.claimed < GATE.minClaimed) return `under ${GATE.minClaimed} claimed`
  return row.ratio! >= GATE.low && row.ratio! <= GATE.high ? 'inside' : '**outside**'
}

function crowdRows(venue: string, crowd: string, looks: readonly Look[]): string[] {
  const seeds = looks.flatMap((l) => l.seeds)
  const byLook = looks.map((l) => (100 * gapClosed(l.seeds)).toFixed(1)).join(' · ')
  const gap = `${(100 * gapClosed(seeds)).toFixed(1)} % (${byLook})`
  /** a table the looks may not all have kept, pooled only where every one did */
  const pooledWhereKept = (tables: (CardTailRow[] | null)[], bucket: string) =>
    tables.every((t) => t !== null) ? pooledCardTail(tables as CardTailRow[][], bucket) : null
  return BUCKETS.map((bucket, i) => {
    const each = looks
      .map((l) =>
        lookCell(
          pooledCardTail(
            l.seeds.map((s) => s.tails),
            bucket,
          ),
        ),
      )
      .join(' · ')
    const pooled = pooledCardTail(
      seeds.map((s) => s.tails),
      bucket,
    )
    const referee = pooledWhereKept(
      seeds.map((s) => s.oracleTails),
      bucket,
    )
    const onV2 = pooledWhereKept(
      seeds.map((s) => s.refereeOnV2),
      bucket,
    )
    const lead = i === 0 ? [`${venue} · \`${crowd}\``, looks.map(lookLabel).join(', '), gap] : ['', '', '']
    const cells = [
      ...lead,
      bucket,
      each,
      pooled ? pooledTailText(pooled) : '–',
      referee ? tailRatioText(referee) : 'not kept',
      onV2 ? tailRatioText(onV2) : 'not kept',
    ]
    return `| ${[...cells, verdict(pooled)].join(' | ')} |`
  })
}

function pooledTable(): string {
  const out: string[] = [
    `Every held-out look the card keeps, pooled by venue and crowd (the committed JSON; disjoint paths; each look names the v2 it judged). Each look: claimed → realised long-shot wins (realised / claimed); pooled: ratio ± SE clustered by contest, the exact referee's own ratio on the same readings (its own claims against the outcomes: the paths' luck) and the referee's expected wins over v2's claims on v2's readings (v2's miscalibration without that luck; above 1: v2 too sure), each where every look of the row kept it. Gate: [${GATE.low}, ${GATE.high}] where ≥ ${GATE.minClaimed} wins are claimed.`,
    '',
    '| venue · crowd | looks (seeds; v2) | v1 → referee gap closed, summed (each look) | bucket | each look | pooled | referee, pooled | referee on v2’s claims, pooled | gate |',
    '|---|---|---|---|---|---|---|---|---|',
  ]
  for (const { venue, looks } of venueLooks()) {
    for (const crowd of new Set(looks.map((l) => l.crowd))) {
      out.push(
        ...crowdRows(
          venue,
          crowd,
          looks.filter((l) => l.crowd === crowd),
        ),
      )
    }
  }
  return out.join('\n')
}

if (import.meta.main) {
  const { values } = parseToolArgs(
    'model:pooled',
    'the held-out looks pooled by venue and crowd (docs/model.md)',
    {
      options: {
        card: { type: 'string', default: 'docs/model.md' },
        print: { type: 'boolean', default: false },
      },
    },
  )
  const table = pooledTable()
  if (values.print) process.stdout.write(`${table}\n`)
  else {
    const card = values.card
    writeFileSync(card, replaceBlock(readFileSync(card, 'utf8'), 'model:pooled', table, card))
    process.stderr.write(`model:pooled: wrote the pooled table of ${card}\n`)
  }
}
